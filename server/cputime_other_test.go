//go:build !unix

package server_test

import "time"

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }
