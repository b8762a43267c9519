"""Test overlay: a throwaway database and index under var/test unless told otherwise."""

from .base import *  # noqa: F403
from .base import VAR_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
KB_INDEX_DIR = VAR_DIR / "test-index"
