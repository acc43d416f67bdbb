package inspect

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/webhook"
	"github.com/a2agen/a2agen/runtime"
)

// Delivery is one push notification the receiver got, accepted or refused.
type Delivery struct {
	Time     time.Time       `json:"time"`
	Path     string          `json:"path"`
	ConfigID string          `json:"configId,omitempty"`
	TaskID   string          `json:"taskId,omitempty"`
	Verified bool            `json:"verified"`          // the token matched the config's
	Refused  string          `json:"refused,omitempty"` // why it was answered with an error
	Event    json.RawMessage `json:"event,omitempty"`   // the delivery as a v1.0 StreamResponse
}

// endpoint is a webhook the inspector registered with the agent.
type endpoint struct {
	configID, taskID, token string
}

// receiver takes push deliveries on its own loopback listener, at
// /push/<endpoint id>, checks each one's token against the one registered
// for that endpoint, and shows them.
type receiver struct {
	base string // http://127.0.0.1:PORT
	srv  *http.Server
	hub  *hub

	mu        sync.Mutex
	endpoints map[string]endpoint
}

func startReceiver(h *hub) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("a2a inspect: the push receiver: %w", err)
	}
	r := &receiver{base: "http://" + ln.Addr().String(), hub: h, endpoints: map[string]endpoint{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// add registers a new endpoint and returns its URL and token.
func (r *receiver) add(configID, taskID string) (string, string) {
	id := strings.ToLower(rand.Text()[:12])
	token := rand.Text()
	r.mu.Lock()
	r.endpoints[id] = endpoint{configID: configID, taskID: taskID, token: token}
	r.mu.Unlock()
	return r.base + "/push/" + id, token
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	d := Delivery{Time: time.Now(), Path: req.URL.Path}
	refuse := func(status int, why string) {
		d.Refused = why
		r.hub.publish(Event{Kind: "delivery", Delivery: &d})
		http.Error(w, why, status)
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(http.StatusMethodNotAllowed, "push notifications are POSTed")
		return
	}
	r.mu.Lock()
	ep, ok := r.endpoints[strings.TrimPrefix(req.URL.Path, "/push/")]
	r.mu.Unlock()
	if !ok {
		refuse(http.StatusNotFound, "no push config of this inspector posts here")
		return
	}
	d.ConfigID, d.TaskID = ep.configID, ep.taskID
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, webhook.MaxDeliveryBytes))
	if err != nil {
		refuse(http.StatusBadRequest, "unreadable body: "+err.Error())
		return
	}
	if !webhook.TokenMatches(req.Header, ep.token) {
		refuse(http.StatusUnauthorized, "missing or wrong notification token")
		return
	}
	d.Verified = true
	ev, err := webhook.ReadDelivery(body)
	if err != nil {
		refuse(http.StatusBadRequest, "not an A2A event: "+err.Error())
		return
	}
	if b, err := runtime.MarshalJSON(ev); err == nil {
		d.Event = b
	}
	if id := ev.TaskID(); id != "" {
		d.TaskID = id
	}
	w.WriteHeader(http.StatusOK)
	r.hub.publish(Event{Kind: "delivery", Delivery: &d})
}

// handlePushCreate registers a push config for a task that posts to a new
// endpoint of the receiver, with a fresh token, through the chosen
// interface (the call shows in the wire view like any other).
func (s *Server) handlePushCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Interface int    `json:"interface"`
		Version   string `json:"version"`
		TaskID    string `json:"taskId"`
		ConfigID  string `json:"configId"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	if in.TaskID == "" {
		writeError(w, http.StatusBadRequest, "give the task to receive notifications of")
		return
	}
	url, token := s.receiver.add(in.ConfigID, in.TaskID)
	req := &a2av1.TaskPushNotificationConfig{TaskId: in.TaskID, Id: in.ConfigID, Url: url, Token: token}
	call := &callRequest{Interface: in.Interface, Version: in.Version, Operation: "CreateTaskPushNotificationConfig"}
	p, cerr, status := s.prepare(r.Context(), call, req)
	if cerr != nil {
		writeJSON(w, status, map[string]any{"error": cerr})
		return
	}
	defer p.client.Close()
	resp, err := p.client.CreateTaskPushNotificationConfig(p.ctx, req)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"call": p.tag.id, "error": toCallError(err)})
		return
	}
	if resp.GetId() != "" {
		s.receiver.mu.Lock()
		id := strings.TrimPrefix(url, s.receiver.base+"/push/")
		ep := s.receiver.endpoints[id]
		ep.configID = resp.GetId()
		s.receiver.endpoints[id] = ep
		s.receiver.mu.Unlock()
	}
	b, _ := runtime.MarshalJSON(resp)
	writeJSON(w, http.StatusOK, map[string]any{"call": p.tag.id, "response": json.RawMessage(b), "url": url})
}
