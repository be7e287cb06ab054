package web

import (
	"encoding/json"
	"net/http"
)

// HealthHandler answers liveness probes with a JSON status.
func HealthHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
}

// Serve starts the HTTP server on addr with the health route.
func Serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", HealthHandler)
	return http.ListenAndServe(addr, mux)
}
