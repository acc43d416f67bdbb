package notesv1_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"

	notesv1 "example.com/golden/no_tenant/notes/v1"
	"github.com/a2agen/a2agen/runtime"
)

// restNotes serves every rule shape of the case over HTTP+JSON.
type restNotes struct {
	notes
}

func (restNotes) CreateNote(_ context.Context, req *notesv1.CreateNoteRequest) (*notesv1.Note, error) {
	return &notesv1.Note{NoteId: "n-new", Text: req.GetNote().GetText()}, nil
}

func (restNotes) UpdateNote(_ context.Context, req *notesv1.UpdateNoteRequest) (*notesv1.Note, error) {
	return req.GetNote(), nil
}

func (restNotes) ListNotes(_ context.Context, req *notesv1.ListNotesRequest) (*notesv1.ListNotesResponse, error) {
	return &notesv1.ListNotesResponse{NextPageToken: fmt.Sprintf("%s+%d", req.GetPageToken(), req.GetPageSize())}, nil
}

func (restNotes) DeleteNote(context.Context, *notesv1.GetNoteRequest) (*emptypb.Empty, error) {
	return new(emptypb.Empty), nil
}

// TestGeneratedCodeOverREST drives the generated REST handler and client
// through body "<field>", a nested path variable, a multi-segment capture,
// PATCH, DELETE, query parameters and a custom verb, and checks the request
// lines the client produced from the compiled rules.
func TestGeneratedCodeOverREST(t *testing.T) {
	var (
		mu    sync.Mutex
		lines []string
	)
	h := notesv1.NewNoteServiceRESTHandler(restNotes{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lines = append(lines, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := notesv1.NewNoteServiceRESTClient(srv.URL)
	ctx := context.Background()

	created, err := c.CreateNote(ctx, &notesv1.CreateNoteRequest{Note: &notesv1.Note{Text: "hello"}})
	if err != nil || created.GetNoteId() != "n-new" || created.GetText() != "hello" {
		t.Fatalf("CreateNote = %v, %v", created, err)
	}
	got, err := c.GetNote(ctx, &notesv1.GetNoteRequest{NoteId: "n 1"})
	if err != nil || got.GetText() != "text of n 1" {
		t.Fatalf("GetNote = %v, %v", got, err)
	}
	updated, err := c.UpdateNote(ctx, &notesv1.UpdateNoteRequest{Note: &notesv1.Note{NoteId: "n1", Text: "new"}})
	if err != nil || updated.GetNoteId() != "n1" || updated.GetText() != "new" {
		t.Fatalf("UpdateNote = %v, %v", updated, err)
	}
	list, err := c.ListNotes(ctx, &notesv1.ListNotesRequest{PageSize: 2, PageToken: "tok"})
	if err != nil || list.GetNextPageToken() != "tok+2" {
		t.Fatalf("ListNotes = %v, %v", list, err)
	}
	if _, err := c.DeleteNote(ctx, &notesv1.GetNoteRequest{NoteId: "n1"}); err != nil {
		t.Fatalf("DeleteNote: %v", err)
	}
	var events []string
	for ev, err := range c.WatchNotes(ctx, &notesv1.WatchNotesRequest{Folder: "folders/f"}) {
		if err != nil {
			t.Fatalf("WatchNotes: %v", err)
		}
		events = append(events, ev.GetDeletedNoteId())
	}
	if fmt.Sprint(events) != "[folders/f/0 folders/f/1 folders/f/2]" {
		t.Errorf("WatchNotes events = %v", events)
	}
	if _, err := c.Touch(ctx, &notesv1.GetNoteRequest{NoteId: "n1"}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("Touch on the unimplemented handler: %v, want UnsupportedOperation", err)
	}
	for _, err := range c.WatchNotes(ctx, &notesv1.WatchNotesRequest{Folder: "elsewhere/f"}) {
		if !errors.Is(err, runtime.ErrInvalidParams) {
			t.Errorf("WatchNotes outside folders/*: %v, want InvalidParams (the value cannot fill the path)", err)
		}
	}
	if _, err := c.Ping(ctx, new(emptypb.Empty)); !errors.Is(err, runtime.ErrMethodNotFound) {
		t.Errorf("Ping has no HTTP rule: %v, want MethodNotFound", err)
	}

	want := []string{
		"POST /notes",
		"GET /notes/n%201",
		"PATCH /notes/n1",
		"GET /notes?pageSize=2&pageToken=tok",
		"DELETE /notes/n1",
		"GET /folders/folders/f/notes:watch",
		"POST /notes/n1:touch",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
