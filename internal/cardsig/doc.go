// Package cardsig signs and verifies agent cards (A2A §8.4): JWS signatures
// (RFC 7515, detached payload) over the card without its signatures in RFC
// 8785 canonical form (package jcs), with EC P-256/384/521, Ed25519 and RSA
// keys, read from PEM files or JSON Web Key Sets (RFC 7517). a2a-scaffold
// signs with it; package agentcard and the a2a command verify with it.
package cardsig
