"""`embedstore eval`: a self-supervised retrieval benchmark of the user's own repository."""
