//go:build sdk_v2_3

package main

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// pushSenderConfig is the push sender's configuration for the SDK v2.3.1
// build (go.sdk-v2.3.1.mod, tag sdk_v2_3), whose sender has no SSRF guard:
// loopback webhooks work as is.
func pushSenderConfig() *push.HTTPSenderConfig {
	return &push.HTTPSenderConfig{Timeout: 10 * time.Second}
}
