package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// DefaultLimit and MaxLimit bound how many notifications one listing returns.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

var errNotFound = fault.NotFoundf("Notification not found.")

// Notification is one workspace update as the web app shows it.
type Notification struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Message   string     `json:"message"`
	Link      *string    `json:"link"`
	CreatedAt time.Time  `json:"createdAt"`
	ReadAt    *time.Time `json:"readAt"`
}

// List is a page of notifications, newest first, with the caller's total
// unread count (which may exceed the page).
type List struct {
	Items       []Notification `json:"items"`
	UnreadCount int            `json:"unreadCount"`
}

// Service reads notifications and records what users have read. It never
// writes notifications themselves: only the projection does.
type Service struct {
	db pgdb.Querier
}

// NewService returns a Service over db.
func NewService(db pgdb.Querier) *Service { return &Service{db: db} }

const selectNotification = `SELECT n.id, n.title, n.message, n.link, n.created_at, r.read_at
	FROM notifications n LEFT JOIN notification_reads r ON r.notification_id = n.id`

// List returns the caller's newest notifications (limit is clamped to
// 1..MaxLimit; 0 means DefaultLimit).
func (s *Service) List(ctx context.Context, userID string, limit int) (List, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	rows, err := s.db.Query(ctx, selectNotification+`
		WHERE n.user_id = $1 ORDER BY n.created_at DESC, n.source_position DESC, n.kind LIMIT $2`, userID, limit)
	if err != nil {
		return List{}, fmt.Errorf("list notifications: %w", err)
	}
	items, err := pgx.CollectRows(rows, scanNotification)
	if err != nil {
		return List{}, fmt.Errorf("list notifications: %w", err)
	}
	out := List{Items: items}
	if out.Items == nil {
		out.Items = []Notification{}
	}
	if out.UnreadCount, err = s.unread(ctx, userID); err != nil {
		return List{}, err
	}
	return out, nil
}

func (s *Service) unread(ctx context.Context, userID string) (int, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM notifications n
		WHERE n.user_id = $1 AND NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id)`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unread notifications: %w", err)
	}
	return n, nil
}

// MarkRead marks one of the caller's notifications read (keeping the first
// read time when it already was) and returns it. Another user's id is
// reported exactly like a missing one.
func (s *Service) MarkRead(ctx context.Context, userID, id string) (Notification, error) {
	_, err := s.db.Exec(ctx, `INSERT INTO notification_reads (notification_id, user_id, read_at)
		SELECT id, user_id, now() FROM notifications WHERE id = $1 AND user_id = $2
		ON CONFLICT (notification_id) DO NOTHING`, id, userID)
	if err != nil {
		return Notification{}, fmt.Errorf("mark notification read: %w", err)
	}
	rows, err := s.db.Query(ctx, selectNotification+` WHERE n.id = $1 AND n.user_id = $2`, id, userID)
	if err != nil {
		return Notification{}, fmt.Errorf("load notification: %w", err)
	}
	n, err := pgx.CollectExactlyOneRow(rows, scanNotification)
	if errors.Is(err, pgx.ErrNoRows) {
		return Notification{}, errNotFound
	}
	if err != nil {
		return Notification{}, fmt.Errorf("load notification: %w", err)
	}
	return n, nil
}

// MarkAllRead marks every notification of the caller read, including those
// beyond the first page.
func (s *Service) MarkAllRead(ctx context.Context, userID string) error {
	_, err := s.db.Exec(ctx, `INSERT INTO notification_reads (notification_id, user_id, read_at)
		SELECT id, user_id, now() FROM notifications WHERE user_id = $1
		ON CONFLICT (notification_id) DO NOTHING`, userID)
	if err != nil {
		return fmt.Errorf("mark all notifications read: %w", err)
	}
	return nil
}

func scanNotification(row pgx.CollectableRow) (Notification, error) {
	var n Notification
	if err := row.Scan(&n.ID, &n.Title, &n.Message, &n.Link, &n.CreatedAt, &n.ReadAt); err != nil {
		return Notification{}, err
	}
	n.CreatedAt = n.CreatedAt.UTC()
	if n.ReadAt != nil {
		t := n.ReadAt.UTC()
		n.ReadAt = &t
	}
	return n, nil
}
