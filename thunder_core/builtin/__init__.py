"""The core's own plugins, registered through the same hooks as third-party ones."""
