package runtime

import (
	"strings"
	"testing"
)

func TestParseGRPCTarget(t *testing.T) {
	tests := []struct {
		url    string
		target string
		tls    bool
	}{
		// host:port, the form of the current A2A proto comment.
		{"agent.example.com:443", "agent.example.com:443", true},
		{"agent.example.com:50051", "agent.example.com:50051", true},
		{"agent.example.com", "agent.example.com:443", true},
		{"localhost:50051", "localhost:50051", false},
		{"a2a.localhost:50051", "a2a.localhost:50051", false},
		{"127.0.0.1:50051", "127.0.0.1:50051", false},
		{"127.8.9.10:50051", "127.8.9.10:50051", false},
		{"[::1]:50051", "[::1]:50051", false},
		{"::1", "[::1]:443", false},
		{"[2001:db8::1]:8443", "[2001:db8::1]:8443", true},
		{"10.0.0.7:50051", "10.0.0.7:50051", true},
		{"  agent.example.com:443  ", "agent.example.com:443", true},
		{"agent.example.com:443/ignored/path", "agent.example.com:443", true},
		// HTTPS URLs, the form of the v1.0.1 proto comment and sample card.
		{"https://agent.example.com/a2a/grpc", "agent.example.com:443", true},
		{"https://agent.example.com:8443/a2a/grpc?x=1#f", "agent.example.com:8443", true},
		{"HTTPS://Agent.Example.com", "Agent.Example.com:443", true},
		{"https://localhost:8443", "localhost:8443", true},
		{"https://[2001:db8::1]/a2a", "[2001:db8::1]:443", true},
		{"grpcs://agent.example.com", "agent.example.com:443", true},
		{"http://127.0.0.1:8080/a2a/grpc", "127.0.0.1:8080", false},
		{"http://agent.example.com", "agent.example.com:80", false},
		{"grpc://agent.example.com:50051", "agent.example.com:50051", false},
		{"grpc://agent.example.com", "agent.example.com:80", false},
		// grpc-go target names pass through verbatim.
		{"dns:///agent.example.com:443", "dns:///agent.example.com:443", true},
		{"dns://8.8.8.8/agent.example.com:443", "dns://8.8.8.8/agent.example.com:443", true},
		{"dns:///localhost:50051", "dns:///localhost:50051", false},
		{"passthrough:///127.0.0.1:50051", "passthrough:///127.0.0.1:50051", false},
		{"unix:///tmp/agent.sock", "unix:///tmp/agent.sock", false},
		{"unix:/tmp/agent.sock", "unix:/tmp/agent.sock", false},
		{"unix-abstract:agent", "unix-abstract:agent", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := ParseGRPCTarget(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got.Target != tt.target || got.TLS != tt.tls {
				t.Errorf("ParseGRPCTarget(%q) = %+v, want {Target:%s TLS:%v}", tt.url, got, tt.target, tt.tls)
			}
		})
	}
}

func TestParseGRPCTargetErrors(t *testing.T) {
	tests := []struct{ url, mention string }{
		{"", "empty"},
		{"   ", "empty"},
		{"https://", "no host"},
		{"https:///a2a", "no host"},
		{"agent.example.com:0", "port"},
		{"agent.example.com:http", "port"},
		{"agent.example.com:70000", "port"},
		{"https://user:pw@agent.example.com", "user information"},
		{"dns:///", "no host"},
		{":50051", "no host"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := ParseGRPCTarget(tt.url)
			if err == nil {
				t.Fatalf("ParseGRPCTarget(%q) = %+v, want an error", tt.url, got)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not mention %q", err, tt.mention)
			}
		})
	}
}
