"""MCP servers' configuration and call records (``mcp.*``); the agent runtime starts the servers.

- ``config``: ``kv(ns='mcpServers')`` rows, their env/header values in the secret store
- ``results``: an MCP result's content as the text the model reads
- ``commands``: the ``mcp.*`` commands
"""
