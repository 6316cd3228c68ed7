"""Numbers behind Part III, page 2: raising the RoPE base."""
