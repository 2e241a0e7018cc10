"""The tool server for AI agents: JSON-RPC 2.0 methods and the Model Context Protocol.

``tools`` holds the registry (each tool: a JSON Schema and a handler that calls the same
service functions as the REST routes), ``protocol`` answers JSON-RPC messages, ``http`` and
``stdio`` are the two transports.
"""
