"""Application layer: ports (Protocols) and the services that orchestrate the domain through them."""
