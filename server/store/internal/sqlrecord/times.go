package sqlrecord

import "time"

// The range of a time column: unix nanoseconds in an int64.
const (
	MinNanos = -1 << 63
	MaxNanos = 1<<63 - 1
)

// Nanos is t in unix nanoseconds, clamped to the int64 range (UnixNano is
// undefined outside it).
func Nanos(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, MinNanos)):
		return MinNanos
	case t.After(time.Unix(0, MaxNanos)):
		return MaxNanos
	}
	return t.UnixNano()
}

// TimeOf is the inverse of Nanos for a nullable column (valid false: NULL,
// the zero time).
func TimeOf(ns int64, valid bool) time.Time {
	if !valid {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// Lease is a lease end as a nullable column: its nanoseconds, and false for
// none (the zero time).
func Lease(t time.Time) (int64, bool) {
	if t.IsZero() {
		return 0, false
	}
	return Nanos(t), true
}

// StoredTime is t as a read of the column returns it.
func StoredTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.Unix(0, Nanos(t))
}
