"""hsa's verl bridge: a BaseTool, an interaction and compute_score over `hsa env serve` (stdlib only)."""
