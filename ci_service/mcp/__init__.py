"""The tool server for AI agents: JSON-RPC 2.0 methods and the Model Context Protocol.

``tools`` holds the registry (each tool: a JSON Schema and a handler that calls the same
service functions as the REST routes), ``catalog`` the service-backed tools and their
lookup, ``protocol`` answers JSON-RPC messages, ``stdio`` is the stdin/stdout transport.
The HTTP transport, ``POST /mcp``, is a Flask blueprint of the web layer (web/mcp_http.py):
this package imports services, never web.
"""
