package push

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrBlockedAddress is reported for a webhook whose address the sender
// refuses: a webhook URL comes from a client, and without this guard any
// client could make the agent send requests into its own network (SSRF, A2A
// §13.2). By default every range of the IANA special-purpose address
// registries that is not globally reachable is refused (see specialRanges),
// as are IPv6 addresses that embed such an IPv4 address. The operator
// changes the policy with AllowPrivateNetworks, AllowDestinations and
// DenyDestinations.
var ErrBlockedAddress = errors.New("push: webhook address is in a blocked network")

// rangeAction is what the guard does with an address in a special range.
type rangeAction uint8

const (
	// refuse: the range is not globally reachable.
	refuse rangeAction = iota
	// reachable: a globally reachable allocation inside a refused range
	// (the registries' "unless allowed by a more specific allocation").
	reachable
	// embedded: the address carries IPv4 addresses (decoded by extract),
	// and it is refused when one of them is.
	embedded
)

// specialRange is one row of specialRanges.
type specialRange struct {
	prefix  netip.Prefix
	name    string
	rfc     string
	action  rangeAction
	extract func(a [16]byte) []netip.Addr // for embedded
}

func r(prefix, name, rfc string, action rangeAction) specialRange {
	return specialRange{prefix: netip.MustParsePrefix(prefix), name: name, rfc: rfc, action: action}
}

func e(prefix, name, rfc string, extract func([16]byte) []netip.Addr) specialRange {
	return specialRange{prefix: netip.MustParsePrefix(prefix), name: name, rfc: rfc, action: embedded, extract: extract}
}

// v4At decodes the IPv4 address at a[i:i+4], each byte XORed with x.
func v4At(a [16]byte, i int, x byte) netip.Addr {
	return netip.AddrFrom4([4]byte{a[i] ^ x, a[i+1] ^ x, a[i+2] ^ x, a[i+3] ^ x})
}

// lastFour is the IPv4 address in the low 32 bits (mapped, compatible, NAT64).
func lastFour(a [16]byte) []netip.Addr { return []netip.Addr{v4At(a, 12, 0)} }

// sixToFour is the IPv4 address after 2002::/16 (RFC 3056 §2).
func sixToFour(a [16]byte) []netip.Addr { return []netip.Addr{v4At(a, 2, 0)} }

// teredo is the server's IPv4 address (bits 32–63) and the client's
// (bits 96–127, every bit inverted) of a Teredo address (RFC 4380 §4).
func teredo(a [16]byte) []netip.Addr { return []netip.Addr{v4At(a, 4, 0), v4At(a, 12, 0xff)} }

// specialRanges is the guard's policy as data: the entries of the IANA IPv4
// and IPv6 Special-Purpose Address Registries (RFC 6890) whose "Globally
// Reachable" is False, the globally reachable allocations inside them, the
// IPv6 forms that embed an IPv4 address (with the IPv4-translated form of
// RFC 2765, which the registries do not list), and three ranges outside those
// registries that are never a webhook: multicast (both families) and the
// deprecated IPv6 site-local fec0::/10. The most specific matching row
// decides. Anything not listed is globally reachable and allowed.
var specialRanges = []specialRange{
	// IPv4 Special-Purpose Address Registry.
	r("0.0.0.0/8", "this network", "RFC 791", refuse), // Linux routes it to the local host
	r("10.0.0.0/8", "private", "RFC 1918", refuse),
	r("100.64.0.0/10", "shared address space", "RFC 6598", refuse), // carrier-grade NAT; some clouds' metadata services
	r("127.0.0.0/8", "loopback", "RFC 1122", refuse),
	r("169.254.0.0/16", "link-local", "RFC 3927", refuse), // includes the cloud metadata address 169.254.169.254
	r("172.16.0.0/12", "private", "RFC 1918", refuse),
	r("192.0.0.0/24", "IETF protocol assignment", "RFC 6890", refuse), // DS-Lite, dummy, NAT64 discovery ...
	r("192.0.0.9/32", "PCP anycast", "RFC 7723", reachable),
	r("192.0.0.10/32", "TURN anycast", "RFC 8155", reachable),
	r("192.0.2.0/24", "documentation", "RFC 5737", refuse),
	r("192.88.99.0/24", "deprecated 6to4 relay anycast", "RFC 7526", refuse),
	r("192.168.0.0/16", "private", "RFC 1918", refuse),
	r("198.18.0.0/15", "benchmarking", "RFC 2544", refuse),
	r("198.51.100.0/24", "documentation", "RFC 5737", refuse),
	r("203.0.113.0/24", "documentation", "RFC 5737", refuse),
	r("240.0.0.0/4", "reserved", "RFC 1112", refuse),
	r("255.255.255.255/32", "limited broadcast", "RFC 919", refuse),
	// Not in the registry: multicast is never a webhook.
	r("224.0.0.0/4", "multicast", "RFC 5771", refuse),

	// IPv6 Special-Purpose Address Registry.
	r("::/128", "unspecified", "RFC 4291", refuse),
	r("::1/128", "loopback", "RFC 4291", refuse),
	e("::/96", "IPv4-compatible", "RFC 4291", lastFour), // deprecated (§2.5.5.1)
	e("::ffff:0:0/96", "IPv4-mapped", "RFC 4291", lastFour),
	// Not in the registry: the IPv4-translated form of stateless translation
	// (::ffff:0:a.b.c.d), which some stacks still route to a.b.c.d.
	e("::ffff:0:0:0/96", "IPv4-translated", "RFC 2765", lastFour),
	e("64:ff9b::/96", "NAT64", "RFC 6052", lastFour),
	// Local-use translation: not globally reachable, and the embedding
	// depends on the operator's prefix length, so all of it is refused.
	r("64:ff9b:1::/48", "local-use IPv4/IPv6 translation", "RFC 8215", refuse),
	r("100::/64", "discard-only", "RFC 6666", refuse),
	r("100:0:0:1::/64", "dummy IPv6 prefix", "RFC 9780", refuse),
	r("2001::/23", "IETF protocol assignment", "RFC 2928", refuse),
	e("2001::/32", "Teredo", "RFC 4380", teredo),
	r("2001:1::1/128", "PCP anycast", "RFC 7723", reachable),
	r("2001:1::2/128", "TURN anycast", "RFC 8155", reachable),
	r("2001:1::3/128", "DNS-SD SRP anycast", "RFC 9665", reachable),
	r("2001:2::/48", "benchmarking", "RFC 5180", refuse),
	r("2001:3::/32", "AMT", "RFC 7450", reachable),
	r("2001:4:112::/48", "AS112-v6", "RFC 7535", reachable),
	r("2001:10::/28", "deprecated ORCHID", "RFC 4843", refuse),
	r("2001:20::/28", "ORCHIDv2", "RFC 7343", reachable),
	r("2001:30::/28", "DRIP DET", "RFC 9374", reachable),
	r("2001:db8::/32", "documentation", "RFC 3849", refuse),
	e("2002::/16", "6to4", "RFC 3056", sixToFour),
	r("3fff::/20", "documentation", "RFC 9637", refuse),
	r("5f00::/16", "SRv6 SID", "RFC 9602", refuse),
	r("fc00::/7", "unique-local", "RFC 4193", refuse),
	r("fe80::/10", "link-local", "RFC 4291", refuse),
	// Not in the registry: deprecated site-local and multicast.
	r("fec0::/10", "site-local", "RFC 3879", refuse),
	r("ff00::/8", "multicast", "RFC 4291", refuse),
}

// lookup returns the most specific row of specialRanges containing ip.
func lookup(ip netip.Addr) *specialRange {
	var best *specialRange
	for i := range specialRanges {
		sr := &specialRanges[i]
		if sr.prefix.Contains(ip) && (best == nil || sr.prefix.Bits() > best.prefix.Bits()) {
			best = sr
		}
	}
	return best
}

// blockedReason returns why ip is refused by the special-range policy, or
// "" when it is globally reachable. ip must carry no zone.
func blockedReason(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid"
	}
	ip = ip.WithZone("")
	sr := lookup(ip)
	if sr == nil || sr.action == reachable {
		return ""
	}
	if sr.action == refuse {
		return sr.name + " (" + sr.rfc + ")"
	}
	for _, v4 := range sr.extract(ip.As16()) {
		if why := blockedReason(v4); why != "" {
			return fmt.Sprintf("%s (%s) embedding %s, a %s", sr.name, sr.rfc, v4, why)
		}
	}
	return ""
}

// embeddedV4 returns the IPv4 addresses ip carries (mapped, translated,
// compatible, NAT64, 6to4, Teredo), for matching the deny-list.
func embeddedV4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return nil
	}
	if sr := lookup(ip); sr != nil && sr.action == embedded {
		return sr.extract(ip.As16())
	}
	return nil
}

// destinations is an allow- or deny-list: host names and networks.
type destinations struct {
	hosts map[string]bool
	nets  []netip.Prefix
}

// add parses entries: a CIDR ("10.1.0.0/16"), an IP ("10.1.2.3", "::1") or
// a host name ("hooks.internal", matched exactly, case-insensitively,
// without a trailing dot); an IPv4-mapped CIDR is stored as IPv4. It
// panics on an empty entry, a malformed CIDR or a name with a port, which
// are programming errors in the options.
func (d *destinations) add(entries []string) {
	for _, s := range entries {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			panic("push: empty destination")
		case strings.Contains(s, "/"):
			p, err := netip.ParsePrefix(s)
			if err != nil {
				panic(fmt.Sprintf("push: destination %q: %v", s, err))
			}
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			d.nets = append(d.nets, p.Masked())
		default:
			if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
				ip = ip.Unmap().WithZone("")
				d.nets = append(d.nets, netip.PrefixFrom(ip, ip.BitLen()))
				continue
			}
			if strings.ContainsAny(s, ":/[]") {
				panic(fmt.Sprintf("push: destination %q is neither an IP, a CIDR nor a host name (no port)", s))
			}
			if d.hosts == nil {
				d.hosts = make(map[string]bool)
			}
			d.hosts[normalizeHost(s)] = true
		}
	}
}

func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func (d *destinations) hasHost(host string) bool {
	return host != "" && d.hosts[host]
}

func (d *destinations) hasAddr(ip netip.Addr) bool {
	for _, p := range d.nets {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// guard is the sender's destination policy.
type guard struct {
	allowPrivate bool // AllowPrivateNetworks: the special-range policy is off
	allow, deny  destinations
}

// decide is the guard's decision function: it returns nil when a webhook
// on host (the URL's host name or literal, lower case, no trailing dot;
// "" when unknown) at ip (the address dialled; invalid before resolution)
// may be delivered, and an error wrapping ErrBlockedAddress otherwise. In
// order:
//
//  1. deny-list: the host name, the address or an IPv4 address it embeds
//     is listed → refused (even with AllowPrivateNetworks or an allow entry);
//  2. allow-list: the host name or the address is listed → allowed;
//  3. AllowPrivateNetworks → allowed;
//  4. "localhost" and names under ".localhost" → refused;
//  5. the address is in a refused special-purpose range → refused;
//  6. otherwise allowed.
func (g *guard) decide(host string, ip netip.Addr) error {
	if ip.IsValid() {
		ip = ip.Unmap().WithZone("")
	}
	if g.deny.hasHost(host) {
		return fmt.Errorf("%w: %s is on the deny-list", ErrBlockedAddress, host)
	}
	if ip.IsValid() {
		if g.deny.hasAddr(ip) {
			return fmt.Errorf("%w: %s is on the deny-list", ErrBlockedAddress, ip)
		}
		for _, v4 := range embeddedV4(ip) {
			if g.deny.hasAddr(v4) {
				return fmt.Errorf("%w: %s embeds %s, which is on the deny-list", ErrBlockedAddress, ip, v4)
			}
		}
	}
	if g.allow.hasHost(host) || (ip.IsValid() && g.allow.hasAddr(ip)) {
		return nil
	}
	if g.allowPrivate {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback host", ErrBlockedAddress, host)
	}
	if ip.IsValid() {
		if why := blockedReason(ip); why != "" {
			return fmt.Errorf("%w: %s is a %s address", ErrBlockedAddress, ip, why)
		}
	}
	return nil
}

// checkDial runs for every address the dialer connects to, after name
// resolution, so a host name that resolves (or re-resolves, DNS rebinding)
// to a blocked address is refused just like a literal one, whatever the
// URL said. host is the name being dialled.
func (g *guard) checkDial(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse dial address %q", ErrBlockedAddress, address)
	}
	return g.decide(host, ap.Addr())
}

// CheckURL reports whether raw is a webhook URL the sender can deliver to: an
// absolute http or https URL with a host and no user information, whose
// host passes the guard as far as it can be judged before resolution
// (lists, literal addresses, "localhost"); names that resolve to blocked
// addresses are refused when they are dialled.
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
	host := normalizeHost(u.Hostname())
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ip = netip.Addr{}
	}
	return s.guard.decide(host, ip)
}

// guardedDial returns the DialContext of the sender's own transport: d
// dials, and the guard checks every address it connects to.
func (g *guard) guardedDial(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			host = address
		}
		host = normalizeHost(host)
		if _, err := netip.ParseAddr(host); err == nil {
			host = "" // a literal is judged as an address only
		}
		dd := *d
		dd.Control = func(_, address string, _ syscall.RawConn) error { return g.checkDial(host, address) }
		return dd.DialContext(ctx, network, address)
	}
}
