"""The event log: one protocol (base.py), two implementations that pass one contract suite.

This package's __init__ imports nothing heavy so the offline verifier can use chain.py without redis.
"""
