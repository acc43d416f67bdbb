package notesv1_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	notesv1 "example.com/golden/no_tenant/notes/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestGeneratedCodeOverGRPC drives the generated gRPC registration and
// client over loopback TCP: a service outside A2A's package, an rpc without
// an HTTP rule, a server stream, validation from the Required table.
func TestGeneratedCodeOverGRPC(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	notesv1.RegisterNoteServiceGRPC(srv, notes{})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	if _, ok := srv.GetServiceInfo()["demo.notes.v1.NoteService"]; !ok {
		t.Fatalf("registered services: %v", srv.GetServiceInfo())
	}

	c, err := notesv1.NewNoteServiceGRPCClient(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := c.GetNote(ctx, &notesv1.GetNoteRequest{NoteId: "n1"})
	if err != nil || got.GetText() != "text of n1" {
		t.Fatalf("GetNote = %v, %v", got, err)
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
	if _, err := c.Ping(ctx, new(emptypb.Empty)); err != nil {
		t.Errorf("Ping (no HTTP rule, still a gRPC method): %v", err)
	}
	imported, err := c.ImportNotes(ctx, slices.Values([]*notesv1.CreateNoteRequest{
		{Note: &notesv1.Note{Text: "a"}}, {Note: &notesv1.Note{Text: "b"}}, {Note: &notesv1.Note{Text: "c"}},
	}))
	if err != nil || len(imported.GetNotes()) != 3 || imported.GetNotes()[2].GetText() != "c" {
		t.Errorf("ImportNotes (client streaming) = %v, %v; want the three notes", imported, err)
	}
	_, err = c.ImportNotes(ctx, slices.Values([]*notesv1.CreateNoteRequest{{Note: &notesv1.Note{Text: "a"}}, {}}))
	if !errors.Is(err, runtime.ErrInvalidParams) {
		t.Errorf("ImportNotes with a request without its note: %v, want InvalidParams", err)
	}
	if _, err := c.CreateNote(ctx, &notesv1.CreateNoteRequest{Note: &notesv1.Note{Text: "x"}}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("CreateNote on the unimplemented handler: %v, want UnsupportedOperation", err)
	}
	if _, err := c.GetNote(ctx, &notesv1.GetNoteRequest{}); !errors.Is(err, runtime.ErrInvalidParams) {
		t.Errorf("GetNote without note_id: %v, want InvalidParams", err)
	}
}
