"""Tools for agent episodes: their OpenAI schemas, the parsing of a model's tool calls, and the small programs that
run them inside the sandbox."""
