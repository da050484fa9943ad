"""Dewee's own settings, by subject, each read from the environment with a default that
works out of the box. dewee.settings imports them all, beside Django's own settings and its
apps'; code reads them as every setting, from ``django.conf.settings``."""
