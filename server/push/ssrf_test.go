package push

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// These tests judge addresses with the guard's decision function only; no
// test sends traffic to a non-loopback address.

// rangeName is the name of the special range that refuses ip, "" when ip
// is allowed.
func rangeName(ip netip.Addr) string {
	why := blockedReason(ip)
	name, _, _ := strings.Cut(why, " (")
	return name
}

func TestBlockedAddresses(t *testing.T) {
	tests := []struct{ addr, want string }{
		// 0.0.0.0/8
		{"0.0.0.0", "this network"}, {"0.1.2.3", "this network"}, {"0.255.255.255", "this network"}, {"1.0.0.0", ""},
		// 10.0.0.0/8
		{"9.255.255.255", ""}, {"10.0.0.0", "private"}, {"10.1.2.3", "private"}, {"10.255.255.255", "private"}, {"11.0.0.0", ""},
		// 100.64.0.0/10
		{"100.63.255.255", ""}, {"100.64.0.0", "shared address space"}, {"100.100.100.200", "shared address space"},
		{"100.127.255.255", "shared address space"}, {"100.128.0.0", ""},
		// 127.0.0.0/8
		{"126.255.255.255", ""}, {"127.0.0.1", "loopback"}, {"127.9.9.9", "loopback"}, {"127.255.255.255", "loopback"}, {"128.0.0.0", ""},
		// 169.254.0.0/16
		{"169.253.255.255", ""}, {"169.254.0.0", "link-local"}, {"169.254.169.254", "link-local"}, {"169.254.255.255", "link-local"}, {"169.255.0.0", ""},
		// 172.16.0.0/12
		{"172.15.255.255", ""}, {"172.16.0.1", "private"}, {"172.31.255.255", "private"}, {"172.32.0.1", ""},
		// 192.0.0.0/24 and its globally reachable /32s
		{"191.255.255.255", ""}, {"192.0.0.0", "IETF protocol assignment"}, {"192.0.0.8", "IETF protocol assignment"},
		{"192.0.0.9", ""}, {"192.0.0.10", ""}, {"192.0.0.11", "IETF protocol assignment"},
		{"192.0.0.170", "IETF protocol assignment"}, {"192.0.0.255", "IETF protocol assignment"}, {"192.0.1.0", ""},
		// 192.0.2.0/24
		{"192.0.2.0", "documentation"}, {"192.0.2.255", "documentation"}, {"192.0.3.0", ""},
		// 192.88.99.0/24
		{"192.88.98.255", ""}, {"192.88.99.1", "deprecated 6to4 relay anycast"}, {"192.88.100.0", ""},
		// 192.168.0.0/16
		{"192.167.255.255", ""}, {"192.168.0.0", "private"}, {"192.168.1.1", "private"}, {"192.168.255.255", "private"}, {"192.169.0.0", ""},
		// 198.18.0.0/15
		{"198.17.255.255", ""}, {"198.18.0.0", "benchmarking"}, {"198.19.255.255", "benchmarking"}, {"198.20.0.0", ""},
		// 198.51.100.0/24, 203.0.113.0/24
		{"198.51.99.255", ""}, {"198.51.100.7", "documentation"}, {"198.51.101.0", ""},
		{"203.0.112.255", ""}, {"203.0.113.7", "documentation"}, {"203.0.114.0", ""},
		// 224.0.0.0/4, 240.0.0.0/4, 255.255.255.255/32
		{"223.255.255.255", ""}, {"224.0.0.1", "multicast"}, {"239.255.255.255", "multicast"},
		{"240.0.0.0", "reserved"}, {"250.1.2.3", "reserved"}, {"255.255.255.254", "reserved"}, {"255.255.255.255", "limited broadcast"},
		// globally reachable IPv4
		{"8.8.8.8", ""}, {"93.184.216.34", ""}, {"192.31.196.1", ""}, {"192.52.193.1", ""}, {"192.175.48.1", ""},

		// ::/128, ::1/128, IPv4-compatible ::/96
		{"::", "unspecified"}, {"::1", "loopback"}, {"::2", "IPv4-compatible"},
		{"::127.0.0.1", "IPv4-compatible"}, {"::10.0.0.1", "IPv4-compatible"}, {"::8.8.8.8", ""}, {"::1:0:0", ""},
		// IPv4-mapped ::ffff:0:0/96
		{"::ffff:10.0.0.1", "IPv4-mapped"}, {"::ffff:127.0.0.1", "IPv4-mapped"}, {"::ffff:100.64.0.1", "IPv4-mapped"},
		{"::ffff:8.8.8.8", ""}, {"::fffe:a00:1", ""}, {"::1:ffff:a00:1", ""},
		// IPv4-translated ::ffff:0:0:0/96 (issue 26: ::ffff:0:7f00:1 was accepted)
		{"::ffff:0:7f00:1", "IPv4-translated"}, {"::ffff:0:a9fe:a9fe", "IPv4-translated"}, {"::ffff:0:a00:1", "IPv4-translated"},
		{"::ffff:0:808:808", ""}, {"::ffff:1:7f00:1", ""},
		// NAT64 64:ff9b::/96
		{"64:ff9b::127.0.0.1", "NAT64"}, {"64:ff9b::169.254.169.254", "NAT64"}, {"64:ff9b::10.0.0.1", "NAT64"},
		{"64:ff9b::8.8.8.8", ""}, {"64:ff9b::1:a00:1", ""}, {"64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", ""},
		// 64:ff9b:1::/48
		{"64:ff9b:1::8.8.8.8", "local-use IPv4/IPv6 translation"}, {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "local-use IPv4/IPv6 translation"},
		{"64:ff9b:2::", ""},
		// 100::/64, 100:0:0:1::/64
		{"100::", "discard-only"}, {"100::ffff:ffff:ffff:ffff", "discard-only"}, {"100:0:0:1::1", "dummy IPv6 prefix"}, {"100:0:0:2::", ""},
		// 2001::/23 with its reachable allocations, and Teredo 2001::/32
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"}, // server 65.54.227.120, client 192.0.2.45 (documentation)
		{"2001:0:a00:1::", "Teredo"},                       // server 10.0.0.1
		{"2001:0:808:808:0:0:80ff:fffe", "Teredo"},         // client 127.0.0.1 (inverted: 80ff:fffe)
		{"2001:0:808:808:0:0:f7f7:f7f7", ""},               // server 8.8.8.8, client 8.8.8.8
		{"2001:1::1", ""}, {"2001:1::2", ""}, {"2001:1::3", ""}, {"2001:1::4", "IETF protocol assignment"},
		{"2001:2::1", "benchmarking"}, {"2001:3::1", ""}, {"2001:4:112::1", ""}, {"2001:4:113::1", "IETF protocol assignment"},
		{"2001:10::1", "deprecated ORCHID"}, {"2001:20::1", ""}, {"2001:30::1", ""}, {"2001:40::1", "IETF protocol assignment"},
		{"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", "IETF protocol assignment"}, {"2001:200::1", ""},
		// 2001:db8::/32
		{"2001:db7:ffff::1", ""}, {"2001:db8::1", "documentation"}, {"2001:db9::", ""},
		// 6to4 2002::/16
		{"2002:a00:1::1", "6to4"}, {"2002:7f00:1::", "6to4"}, {"2002:a9fe:a9fe::1", "6to4"}, {"2002:808:808::1", ""},
		{"2003::1", ""},
		// 3fff::/20, 5f00::/16
		{"3ffe:ffff::1", ""}, {"3fff::1", "documentation"}, {"3fff:fff::1", "documentation"}, {"3fff:1000::1", ""},
		{"5f00::1", "SRv6 SID"}, {"5f01::1", ""},
		// fc00::/7, fe80::/10, fec0::/10, ff00::/8
		{"fbff::1", ""}, {"fc00::1", "unique-local"}, {"fd00::1", "unique-local"}, {"fe00::1", ""},
		{"fe80::1", "link-local"}, {"febf::1", "link-local"}, {"fec0::1", "site-local"}, {"feff::1", "site-local"},
		{"ff02::1", "multicast"}, {"ff0e::1", "multicast"},
		// globally reachable IPv6
		{"2001:4860:4860::8888", ""}, {"2606:4700::1111", ""}, {"2620:4f:8000::1", ""},
	}
	for _, tc := range tests {
		if got := rangeName(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("blockedReason(%s) = %q, want %q", tc.addr, blockedReason(netip.MustParseAddr(tc.addr)), tc.want)
		}
	}
}

// TestSpecialRangesTable checks the table itself: every row parses to a
// masked prefix and has a name and an RFC, and the first and last address
// of every refused range are refused.
func TestSpecialRangesTable(t *testing.T) {
	for _, sr := range specialRanges {
		if sr.prefix != sr.prefix.Masked() || sr.name == "" || !strings.HasPrefix(sr.rfc, "RFC ") {
			t.Errorf("bad row %+v", sr)
		}
		if (sr.action == embedded) != (sr.extract != nil) {
			t.Errorf("row %s: extract set wrongly", sr.prefix)
		}
		if sr.action != refuse {
			continue
		}
		for _, ip := range []netip.Addr{sr.prefix.Addr(), lastAddr(sr.prefix)} {
			if got := lookup(ip); got != nil && got.action == reachable {
				continue // a globally reachable allocation at the edge
			}
			if blockedReason(ip) == "" {
				t.Errorf("%s in refused range %s is allowed", ip, sr.prefix)
			}
		}
	}
}

func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As16()
	off := 0
	if p.Addr().Is4() {
		off = 96
	}
	for i := off + p.Bits(); i < 128; i++ {
		a[i/8] |= 1 << (7 - i%8)
	}
	ip := netip.AddrFrom16(a)
	if p.Addr().Is4() {
		ip = ip.Unmap()
	}
	return ip
}

func TestDecide(t *testing.T) {
	def := &guard{}
	open := &guard{allowPrivate: true}
	lists := &guard{}
	lists.allow.add([]string{"127.0.0.1/32", "10.20.0.0/16", "hooks.internal", "Trusted.Example.", "fd12::/16"})
	lists.deny.add([]string{"10.20.30.0/24", "evil.example.com", "8.8.4.4", "203.0.113.0/24", "hooks.internal.evil"})
	openDeny := &guard{allowPrivate: true}
	openDeny.deny.add([]string{"169.254.169.254", "100.64.0.0/10", "metadata.internal"})
	tests := []struct {
		name  string
		g     *guard
		host  string
		ip    string // "" = not resolved yet
		allow bool
	}{
		{"default public", def, "hooks.example.com", "93.184.216.34", true},
		{"default name before resolution", def, "hooks.example.com", "", true},
		{"default private", def, "hooks.example.com", "10.0.0.1", false},
		{"default shared", def, "", "100.100.100.200", false},
		{"default localhost", def, "localhost", "", false},
		{"default a.localhost", def, "a.localhost", "", false},
		{"default mapped loopback", def, "", "::ffff:127.0.0.1", false},
		{"default translated loopback", def, "", "::ffff:0:7f00:1", false},
		{"deny public addr translated", lists, "", "::ffff:0:808:404", false},
		{"open private", open, "x", "10.0.0.1", true},
		{"open localhost", open, "localhost", "", true},

		{"allow /32 loopback", lists, "", "127.0.0.1", true},
		{"allow /32 mapped", lists, "", "::ffff:127.0.0.1", true},
		{"allow /32 not its neighbour", lists, "", "127.0.0.2", false},
		{"allow /32 not ::1", lists, "", "::1", false},
		{"allow net", lists, "", "10.20.1.1", true},
		{"allow net, outside", lists, "", "10.21.0.1", false},
		{"allow net, not via NAT64", lists, "", "64:ff9b::10.20.1.1", false},
		{"allow v6 net", lists, "", "fd12::1", true},
		{"allow v6 net, outside", lists, "", "fd13::1", false},
		{"allow name, any address", lists, "hooks.internal", "192.168.7.7", true},
		{"allow name, before resolution", lists, "hooks.internal", "", true},
		{"allow name normalized", lists, "trusted.example", "10.9.9.9", true},
		{"allow name exact only", lists, "a.hooks.internal", "192.168.7.7", false},
		{"other name at allowed addr", lists, "other.example", "10.20.1.1", true},
		{"deny wins over allowed net", lists, "", "10.20.30.40", false},
		{"deny wins over allowed name", lists, "hooks.internal", "10.20.30.40", false},
		{"deny public addr", lists, "", "8.8.4.4", false},
		{"deny public addr mapped", lists, "", "::ffff:8.8.4.4", false},
		{"deny public addr via NAT64", lists, "", "64:ff9b::808:404", false},
		{"deny public addr via 6to4", lists, "", "2002:808:404::1", false},
		{"deny public addr via Teredo client", lists, "", "2001:0:808:808::f7f7:fbfb", false},
		{"deny net (public documentation anyway)", lists, "", "203.0.113.9", false},
		{"deny name", lists, "evil.example.com", "", false},
		{"deny name, any address", lists, "evil.example.com", "93.184.216.34", false},
		{"public still allowed with lists", lists, "hooks.example.com", "93.184.216.34", true},
		{"private still refused with lists", lists, "", "192.168.0.1", false},

		{"open, deny still applies", openDeny, "", "169.254.169.254", false},
		{"open, deny net", openDeny, "", "100.100.100.200", false},
		{"open, deny name", openDeny, "metadata.internal", "", false},
		{"open, other private", openDeny, "", "10.0.0.1", true},
	}
	for _, tc := range tests {
		var ip netip.Addr
		if tc.ip != "" {
			ip = netip.MustParseAddr(tc.ip)
		}
		err := tc.g.decide(tc.host, ip)
		if (err == nil) != tc.allow {
			t.Errorf("%s: decide(%q, %s) = %v, want allowed=%v", tc.name, tc.host, tc.ip, err, tc.allow)
		}
		if err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: %v does not wrap ErrBlockedAddress", tc.name, err)
		}
	}
}

func TestDestinationsParse(t *testing.T) {
	var d destinations
	d.add([]string{"::ffff:10.0.0.0/104", "[::1]", " Host.Example. ", "192.168.1.77/24"})
	for _, want := range []string{"10.0.0.0/8", "::1/128", "192.168.1.0/24"} {
		found := false
		for _, p := range d.nets {
			found = found || p == netip.MustParsePrefix(want)
		}
		if !found {
			t.Errorf("nets %v lack %s", d.nets, want)
		}
	}
	if !d.hasHost("host.example") {
		t.Errorf("hosts %v lack host.example", d.hosts)
	}
	for _, bad := range []string{"", "10.0.0.0/33", "x/8", "hooks.internal:8443"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("add(%q) did not panic", bad)
				}
			}()
			new(destinations).add([]string{bad})
		}()
	}
}

func TestCheckURLWithLists(t *testing.T) {
	s := NewSender(AllowDestinations("127.0.0.1/32", "hooks.internal"), DenyDestinations("evil.example.com", "93.184.216.0/24"))
	defer s.Close(context.Background())
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080/":     true,
		"http://[::ffff:127.0.0.1]/": true,
		"http://127.0.0.2/":          false,
		"http://localhost/":          false,
		"http://hooks.internal/x":    true,
		"http://EVIL.example.com./":  false,
		"https://93.184.216.34/":     false,
		"https://hooks.example.com/": true,
		"http://[64:ff9b::7f00:1]/":  false,
		"http://[::ffff:0:7f00:1]/":  false,
		"http://100.64.0.1/":         false,
	} {
		if err := s.CheckURL(url); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want accepted=%v", url, err, ok)
		}
	}
}

// TestAllowListedLoopbackDelivery delivers to a loopback webhook through an
// allow-listed 127.0.0.1/32, without AllowPrivateNetworks.
func TestAllowListedLoopbackDelivery(t *testing.T) {
	r := newReceiver(t, nil)
	_, q := newSender(t, AllowDestinations("127.0.0.1/32"))
	q.send(t, "", &a2av1.TaskPushNotificationConfig{TaskId: "t", Id: "p", Url: r.URL + "/hook"}, statusEvent())
	got := r.wait(t)
	if got.path != "/hook" {
		t.Fatalf("delivered to %q", got.path)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestWithHTTPClient: the operator's client carries the requests (here an
// in-process fake: nothing leaves the process), the guard still checks the
// URL before every attempt, and redirects are not followed.
func TestWithHTTPClient(t *testing.T) {
	var hosts []string
	c := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hosts = append(hosts, r.URL.Host)
		code := http.StatusOK
		if r.URL.Path == "/moved" {
			code = http.StatusFound
		}
		return &http.Response{StatusCode: code, Header: http.Header{"Location": {"http://10.0.0.1/"}},
			Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})}
	s := NewSender(WithHTTPClient(c), DenyDestinations("evil.example.com"))
	defer s.Close(context.Background())
	post := func(url string) error {
		return s.Post(context.Background(), Notification{Config: &a2av1.TaskPushNotificationConfig{TaskId: "t", Id: "p", Url: url}, Event: statusEvent()})
	}
	if err := post("https://hooks.example.com/a2a"); err != nil {
		t.Fatalf("public webhook: %v", err)
	}
	for _, url := range []string{"http://10.0.0.1/", "http://localhost/", "http://[::ffff:169.254.169.254]/", "https://evil.example.com/"} {
		if err := post(url); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("Post(%s) = %v, want ErrBlockedAddress", url, err)
		}
	}
	var se *StatusError
	if err := post("https://hooks.example.com/moved"); !errors.As(err, &se) || se.StatusCode != http.StatusFound {
		t.Errorf("redirect: %v, want a 302 StatusError", err)
	}
	if want := []string{"hooks.example.com", "hooks.example.com"}; strings.Join(hosts, ",") != strings.Join(want, ",") {
		t.Errorf("client saw %v, want %v", hosts, want)
	}
	if c.CheckRedirect != nil {
		t.Error("the operator's client was modified")
	}
}

// TestGuardedDial: the sender's own transport judges the addresses a name
// resolves to, with the name's list entries (loopback only).
func TestGuardedDial(t *testing.T) {
	r := newReceiver(t, nil)
	port := r.URL[strings.LastIndex(r.URL, ":")+1:]
	for _, tc := range []struct {
		name string
		opts []Option
		ok   bool
	}{
		{"default", nil, false},
		{"name allowed", []Option{AllowDestinations("localhost")}, true},
		{"name allowed, address denied", []Option{AllowDestinations("localhost"), DenyDestinations("127.0.0.0/8", "::1")}, false},
		{"private allowed, name denied", []Option{AllowPrivateNetworks(), DenyDestinations("localhost")}, false},
		{"private allowed", []Option{AllowPrivateNetworks()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSender(tc.opts...)
			defer s.Close(context.Background())
			conn, err := s.transport.DialContext(context.Background(), "tcp", "localhost:"+port)
			if err == nil {
				conn.Close()
			}
			if (err == nil) != tc.ok {
				t.Fatalf("dial localhost = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("dial error %v does not wrap ErrBlockedAddress", err)
			}
		})
	}
}
