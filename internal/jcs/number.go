package jcs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AppendNumber appends f as RFC 8785 §3.2.2.3 (ECMAScript's
// Number.prototype.toString) writes it: the shortest digits that read back as
// f, in plain notation for exponents from -6 up to 20 and in exponential
// notation ("1e+21", "5e-324") outside it; -0 is written as 0. NaN and the
// infinities have no JSON form and are errors.
func AppendNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("jcs: %v is not a JSON number", f)
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	digits, n, err := shortestDigits(f)
	if err != nil {
		return dst, err
	}
	return appendECMAScript(dst, digits, n), nil
}

// shortestDigits are the digits of positive f and its exponent n, f being
// 0.digits × 10^n. Go's shortest formatting yields the same digits
// ECMAScript picks: the fewest that round-trip, the closest to f when
// several qualify.
func shortestDigits(f float64) (digits string, n int, err error) {
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(sci, "e")
	exp, err := strconv.Atoi(expText)
	if err != nil {
		return "", 0, fmt.Errorf("jcs: formatting %v: %w", f, err)
	}
	return strings.Replace(mant, ".", "", 1), exp + 1, nil
}

// appendECMAScript writes 0.digits × 10^n as Number.prototype.toString
// does: plain for n from -5 to 21, exponential outside.
func appendECMAScript(dst []byte, digits string, n int) []byte {
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		return append(dst, strings.Repeat("0", n-k)...)
	case 0 < n && n <= 21:
		return append(append(append(dst, digits[:n]...), '.'), digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		return append(append(dst, strings.Repeat("0", -n)...), digits...)
	}
	dst = append(dst, digits[0])
	if k > 1 {
		dst = append(append(dst, '.'), digits[1:]...)
	}
	dst = append(dst, 'e')
	if n-1 >= 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(n-1), 10)
}
