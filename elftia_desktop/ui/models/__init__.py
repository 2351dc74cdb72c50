"""Qt item models for the views (model/view, so long lists stay fast).

Modules:

- ``tool_tree_model``: ``ToolTreeModel``: an agent's candidate tools grouped by server, each with a checkbox.
"""
