"""Reads of an agent's memory graph and of its semantic tier: walks and the shortest path
(queries, paths), the whole graph exported (export), the cross-agent network (network), a
memory's neighbourhood as its page draws it (neighbourhood, layout), entities (entities,
entity_detail). Nothing here writes: the graph is built by memory.services.graph."""
