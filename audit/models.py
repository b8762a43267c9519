"""The historical models are created here by audit.tracked (django-simple-history)."""
