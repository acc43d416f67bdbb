//go:build !unix

package a2av1_test

import "time"

// processCPU is not measured here: the CPU metrics of the benchmarks are 0.
func processCPU() time.Duration { return 0 }
