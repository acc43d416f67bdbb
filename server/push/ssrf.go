package push

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrBlockedAddress is reported for a webhook whose address is in a network
// the sender refuses by default (loopback, private, link-local, unspecified,
// multicast): a webhook URL comes from a client, and without this guard any
// client could make the agent send requests into its own network (SSRF, A2A
// §13.2). Use AllowPrivateNetworks to turn the guard off.
var ErrBlockedAddress = errors.New("push: webhook address is in a blocked network")

// thisNetwork is 0.0.0.0/8, which Linux routes to the local host.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// blockedReason returns why ip may not be dialled, or "".
func blockedReason(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified() || (ip.Is4() && thisNetwork.Contains(ip)):
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local" // includes the cloud metadata address 169.254.169.254
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return ""
}

// checkDial is the net.Dialer Control function of the guarded transport. It
// runs for every address the dialer connects to, after name resolution, so a
// host name that resolves (or re-resolves, DNS rebinding) to a blocked
// address is refused just like a literal one, whatever the URL said.
func checkDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse dial address %q", ErrBlockedAddress, address)
	}
	if why := blockedReason(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is a %s address", ErrBlockedAddress, ap.Addr(), why)
	}
	return nil
}

// CheckURL reports whether raw is a webhook URL the sender can deliver to: an
// absolute http or https URL with a host and no user information. With the
// SSRF guard on it also refuses, early, hosts that are literal blocked
// addresses or "localhost"; names that resolve to blocked addresses are
// refused when they are dialled.
func (s *Sender) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("push: webhook url %q does not parse: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("push: webhook url %q must use http or https", raw)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("push: webhook url %q has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("push: webhook url %q must not carry user information; use authentication instead", raw)
	}
	if s.cfg.allowPrivate {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback host", ErrBlockedAddress, u.Hostname())
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := blockedReason(ip); why != "" {
			return fmt.Errorf("%w: %s is a %s address", ErrBlockedAddress, ip, why)
		}
	}
	return nil
}

// newDialer returns the dialer of the sender's transport.
func newDialer(guard bool) *net.Dialer {
	d := &net.Dialer{Timeout: defaultDialTimeout, KeepAlive: defaultKeepAlive}
	if guard {
		d.Control = checkDial
	}
	return d
}
