package upload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/videocheck"
)

// Turntable videos (issue 48) arrive through the same upload flow as photos:
// a signed PUT (or the multipart fallback), one upload per video, named by the
// same app URL that POST /api/jobs takes in spinSet.videoURLs. What differs is
// the check (internal/videocheck: magic bytes, the picture size and length in
// the container's header, the file whole, at most 150 MB) and that the bytes
// stream through to the blob store instead of being held in memory: a failed
// check aborts the blob write, so a refused video leaves nothing behind.

// The refusals of a video, videocheck's sentences with their codes.
var (
	ErrVideoTooLarge   = fault.New(fault.TooLarge, "video_too_large", videocheck.ErrTooLarge.Error())
	ErrVideoType       = fault.New(fault.UnsupportedMedia, "invalid_video_type", videocheck.ErrInvalidType.Error())
	ErrVideoDimensions = fault.New(fault.Invalid, "video_dimensions", videocheck.ErrDimensions.Error())
	ErrVideoDuration   = fault.New(fault.Invalid, "video_duration", videocheck.ErrDuration.Error())
	ErrVideoUnreadable = fault.New(fault.Invalid, "unreadable_video", videocheck.ErrUnreadable.Error())
)

// ErrVideoNotPhoto refuses a video where a photo is needed (a one-photo or
// multi-photo build, a product's photo, a cutout).
var ErrVideoNotPhoto = fault.New(fault.Invalid, "video_not_photo",
	"This is a video, not a photo. A turntable video goes in a spin set: choose “Create from a spin set or video”.")

// ErrPhotoNotVideo refuses a photo where a spin set's video is named.
var ErrPhotoNotVideo = fault.New(fault.Invalid, "photo_not_video",
	"This is a photo, not a video. Send a spin set's photos in spinSet.imageURLs, its videos in spinSet.videoURLs.")

// ResolvePhoto is Resolve for a photo: a video is refused (ErrVideoNotPhoto).
func (s *Service) ResolvePhoto(ctx context.Context, userID, imageURL string) (Upload, error) {
	up, err := s.Resolve(ctx, userID, imageURL)
	if err == nil && up.IsVideo() {
		return Upload{}, ErrVideoNotPhoto
	}
	return up, err
}

// ResolveVideo is Resolve for a turntable video: a photo is refused
// (ErrPhotoNotVideo).
func (s *Service) ResolveVideo(ctx context.Context, userID, videoURL string) (Upload, error) {
	up, err := s.Resolve(ctx, userID, videoURL)
	if err == nil && !up.IsVideo() {
		return Upload{}, ErrPhotoNotVideo
	}
	return up, err
}

// ErrUploadInterrupted: the video stopped arriving (a dropped connection).
var ErrUploadInterrupted = fault.New(fault.Invalid, "upload_interrupted",
	"The upload was interrupted before the whole video arrived. Please upload it again.")

// videoFault turns videocheck's errors into the fault errors above, keeping
// the cause for the logs; other errors (the blob store's) pass through.
func videoFault(err error) error {
	var re *videocheck.ReadError
	if errors.As(err, &re) {
		return fault.Wrap(err, ErrUploadInterrupted.Kind, ErrUploadInterrupted.Code, ErrUploadInterrupted.Message)
	}
	for _, m := range []struct {
		sentinel error
		fault    *fault.Error
	}{
		{videocheck.ErrTooLarge, ErrVideoTooLarge},
		{videocheck.ErrInvalidType, ErrVideoType},
		{videocheck.ErrDimensions, ErrVideoDimensions},
		{videocheck.ErrDuration, ErrVideoDuration},
		{videocheck.ErrUnreadable, ErrVideoUnreadable},
	} {
		if errors.Is(err, m.sentinel) {
			return fault.Wrap(err, m.fault.Kind, m.fault.Code, m.fault.Message)
		}
	}
	return err
}

// videoTypes are the declared types of a video slot.
var videoTypes = map[string]bool{"video/mp4": true, "video/quicktime": true, "video/webm": true, "video/x-m4v": true}

// videoExtensions map a video's file name to its key extension.
var videoExtensions = map[string]string{".mp4": ".mp4", ".m4v": ".mp4", ".mov": ".mov", ".qt": ".mov", ".webm": ".webm"}

// declaresVideo says whether an upload slot is for a video: its declared type
// or, when the browser declared none (or a generic one), its file name. The
// bytes must then be a video; anything else is checked as a photo.
func declaresVideo(filename, contentType string) bool {
	if videoTypes[contentType] {
		return true
	}
	if contentType == "" || contentType == "application/octet-stream" {
		_, ok := videoExtensions[strings.ToLower(path.Ext(filename))]
		return ok
	}
	return false
}

// IsVideo reports whether the upload is (or was declared as) a video.
// A completed upload is what its bytes were; a pending one what its slot
// was declared for.
func (u Upload) IsVideo() bool {
	if u.Completed() {
		return strings.HasPrefix(u.ContentType, "video/")
	}
	return declaresVideo(u.Filename, u.DeclaredType)
}

// MaxBytesFor is the size limit of an upload slot (what POST /api/uploads
// answers as maxBytes).
func MaxBytesFor(filename, contentType string) int64 {
	if declaresVideo(filename, normalType(contentType)) {
		return videocheck.MaxBytes
	}
	return maxPhotoBytes
}

func normalType(ct string) string {
	return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
}

// storeVideo checks a video while streaming it to the blob store under key,
// and returns what it read. Nothing stays under key unless the check passed
// and the write completed.
func (s *Service) storeVideo(ctx context.Context, key string, body io.Reader) (fileMeta, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	head, _ := br.Peek(videocheck.SniffLen)
	format, ok := videocheck.Sniff(head)
	if !ok {
		return fileMeta{}, ErrVideoType
	}
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		err := s.blobs.WriteStream(ctx, key, format.ContentType(), pr)
		// A store that failed stops reading: fail the check's writes too.
		pr.CloseWithError(err)
		written <- err
	}()
	info, checkErr := videocheck.CheckReader(br, pw)
	pw.CloseWithError(checkErr) // nil: the writer sees the end and commits
	writeErr := <-written
	switch {
	case checkErr != nil && (writeErr == nil || errors.Is(writeErr, checkErr)):
		if writeErr == nil {
			_ = s.blobs.Delete(ctx, key) // the check failed after the last byte
		}
		return fileMeta{}, videoFault(checkErr)
	case writeErr != nil:
		return fileMeta{}, fmt.Errorf("store video: %w", writeErr)
	}
	return fileMeta{ContentType: info.ContentType, Width: info.Width, Height: info.Height, Bytes: info.Bytes}, nil
}

// checkStoredVideo checks a video already in the bucket (a presigned PUT
// straight to the cloud store), reading it once without holding it.
func (s *Service) checkStoredVideo(ctx context.Context, key string) (fileMeta, error) {
	rd, err := s.blobs.Open(ctx, key)
	if err != nil {
		return fileMeta{}, err
	}
	defer rd.Close()
	info, err := videocheck.CheckReader(rd, io.Discard)
	if err != nil {
		return fileMeta{}, videoFault(err)
	}
	return fileMeta{ContentType: info.ContentType, Width: info.Width, Height: info.Height, Bytes: info.Bytes}, nil
}

// uploadVideoContent is the multipart fallback for a video: the upload is
// created, the bytes checked while they stream to the store, and the upload
// completed, the two events in one transaction after the bytes are stored.
// The quota counts the video's size once it is known; a video over it is
// deleted again and refused.
func (s *Service) uploadVideoContent(ctx context.Context, userID, filename string, format videocheck.Format, body io.Reader) (Upload, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Upload{}, fmt.Errorf("new upload id: %w", err)
	}
	filename = cleanFilename(filename)
	up := Upload{ID: id.String(), UserID: userID, Filename: filename, Status: StatusPending}
	up.BlobKey = blobKey(userID, up.ID, format.Extension())
	meta, err := s.storeVideo(ctx, up.BlobKey, body)
	if err != nil {
		return Upload{}, err
	}
	if err := s.checkQuota(ctx, s.db, userID, meta.Bytes); err != nil {
		_ = s.blobs.Delete(ctx, up.BlobKey)
		return Upload{}, err
	}
	up.DeclaredSize, up.DeclaredType = meta.Bytes, meta.ContentType
	now := s.now().UTC()
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		_, err := s.events.Append(ctx, tx, events.Stream{Type: events.StreamUpload, ID: up.ID}, 0,
			events.UploadCreated{UploadID: up.ID, UserID: userID, Filename: filename, ContentType: meta.ContentType,
				Size: meta.Bytes, BlobKey: up.BlobKey, At: now},
			completedEvent(up, meta))
		return err
	})
	if err != nil {
		_ = s.blobs.Delete(ctx, up.BlobKey)
		return Upload{}, fmt.Errorf("record upload: %w", err)
	}
	up.Status, up.ContentType, up.Bytes, up.Width, up.Height, up.CreatedAt =
		StatusCompleted, meta.ContentType, meta.Bytes, meta.Width, meta.Height, now
	return up, nil
}
