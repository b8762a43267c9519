"""No models: present so that Django sends this app post_migrate (see apps.py)."""
