from embedstore.cli.app import main

main()
