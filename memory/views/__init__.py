"""The dashboard's pages of the memory app, one module per page: memories (the list, one
memory, its edit and delete), sessions, entities, maintenance, quotas. HTML adapters over
memory's queries and services; mounted by memory.urls."""
