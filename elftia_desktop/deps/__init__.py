"""Runtime dependency checks (npx, uvx, node, docker ...) and installs."""
