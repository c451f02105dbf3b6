"""LLM adapters: an OpenAI-compatible chat-completions client over httpx, with provider presets."""
