"""The web application: its assembly, settings, the lobby, admission, the WebSockets and one
module per resource of the HTTP API."""
