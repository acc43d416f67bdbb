// Package redact edits what logs and error messages show of connection
// strings: their passwords hidden (Userinfo, QueryPasswords), errors shown
// with a shorter message (Edited). server/storeurl's store URLs and the
// PostgreSQL store's connection strings share it.
package redact

import (
	"net/url"
	"strings"
)

// Mask stands in for a password.
const Mask = "xxxxx"

// Userinfo hides the password of scheme://user:password@host…, also when
// the password holds characters a URL would escape: everything between the
// first colon of the user info and the last @ goes. s without user info, or
// whose user info has no password, is returned unchanged.
func Userinfo(s string) string {
	prefix, body := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, body = s[:i+3], s[i+3:]
	}
	at := strings.LastIndexByte(body, '@')
	if at < 0 {
		return s
	}
	user, _, hasPassword := strings.Cut(body[:at], ":")
	if !hasPassword {
		return s
	}
	return prefix + user + ":" + Mask + body[at:]
}

// QueryPasswords hides the values of query parameters whose name, unescaped,
// mentions a password (libpq's password and sslpassword).
func QueryPasswords(s string) string {
	base, query, ok := strings.Cut(s, "?")
	if !ok {
		return s
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		k, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && strings.Contains(strings.ToLower(name), "password") {
			params[i] = k + "=" + Mask
		}
	}
	return base + "?" + strings.Join(params, "&")
}
