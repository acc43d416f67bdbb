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
	// Go's shortest formatting yields the same digits ECMAScript picks: the
	// fewest that round-trip, the closest to f when several qualify.
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(sci, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, err := strconv.Atoi(expText)
	if err != nil {
		return dst, fmt.Errorf("jcs: formatting %v: %w", f, err)
	}
	k := len(digits)
	n := exp + 1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
