"""Real-browser tests (Playwright + Debian's Chromium); see conftest.py."""
