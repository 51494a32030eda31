"""What every request goes through before and after its route: the one ASGI layer
(`site`), limits on what one client may take, security headers and the
signed player id, the fast path of the move route, telemetry, the operator
endpoints, and the processes the server runs."""
