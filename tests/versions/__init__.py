"""Tests of served versions: conversion through the stored version, --runtime-config, deprecation."""
