"""The Qt front end. Reaches the host only through ``pidesktop.bus``."""
