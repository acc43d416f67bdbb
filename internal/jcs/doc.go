// Package jcs implements the JSON Canonicalization Scheme of RFC 8785: a
// byte-exact serialisation of a JSON value, so that two parties hashing or
// signing "the same" JSON agree on its bytes. A2A signs agent cards over the
// JCS form of the card (A2A §8.4).
//
// The canonical form has no whitespace, object members sorted by the UTF-16
// code units of their names, strings with the minimal escaping of RFC 8785
// §3.2.2.2, and numbers written as ECMAScript writes an IEEE-754 double
// (§3.2.2.3). Input must be I-JSON (RFC 7493): valid UTF-8, no lone
// surrogates, no duplicate member names, numbers that fit a double.
package jcs
