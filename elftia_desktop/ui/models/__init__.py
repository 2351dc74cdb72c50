"""Qt item models for the views (model/view, so long lists stay fast)."""
