"""kgcert: certify LLM reading comprehension over knowledge graphs."""

__version__ = "0.1.0"
