// Package browser holds the end-to-end tests of `a2a inspect` in headless
// Chromium (Debian's chromium, driven with chromedp). It is a module of its
// own so that chromedp never enters the main module's go.mod; `make
// test-browser` runs it, `make inspect-screenshots` also writes the
// screenshots of docs/inspect.md.
package browser
