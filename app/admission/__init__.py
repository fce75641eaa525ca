"""Admission plugins, the reference's built-in ones, and webhook admission.

What a plugin implements and what the registry hands it (`Plugin`, `Attributes`, `Chain`) is the registry's
own interface, `app/registry/admission.py`: the write path calls it, and plugins import it from there.
"""
