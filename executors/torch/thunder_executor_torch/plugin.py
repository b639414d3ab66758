"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``torch``)."""
