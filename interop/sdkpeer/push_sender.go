//go:build !sdk_v2_3

package main

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// pushSenderConfig lets the SDK's push sender reach the tests' webhooks on
// loopback: since v2.4 its SSRF guard refuses loopback and private
// addresses unless AllowPrivateNetworks is set.
func pushSenderConfig() *push.HTTPSenderConfig {
	return &push.HTTPSenderConfig{Timeout: 10 * time.Second, AllowPrivateNetworks: true}
}
