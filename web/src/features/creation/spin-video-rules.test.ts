import { describe, expect, it } from 'vitest';
import { parseJob } from '../../entities/creation/creation-api';
import { spinViewsLabel } from './spin-rules';
import {
  addVideos,
  durationProblem,
  formatDuration,
  MSG_VIDEO_TOO_LARGE,
  MSG_VIDEO_TOO_MANY,
  MSG_VIDEO_TYPE,
  spinVideoProblems,
  validateVideoFile,
  VIDEO_ACCEPT_ATTRIBUTE,
  VIDEO_MAX_BYTES,
  videoBuildLabel,
  videoContentTypeOf,
  videoCredits,
  videoHeightLabel,
  videoPriceLabel,
  videoStartingLabel,
  videoUploadingLabel,
} from './spin-video-rules';

const video = (name: string, type = 'video/mp4', size = 5_000_000) => ({ name, type, size });

describe('which files are turntable videos', () => {
  it('takes MP4, MOV and WebM by type, or by extension when the browser names no type', () => {
    expect(videoContentTypeOf(video('a.mp4'))).toBe('video/mp4');
    expect(videoContentTypeOf(video('a.MOV', 'video/quicktime'))).toBe('video/quicktime');
    expect(videoContentTypeOf(video('a.webm', 'video/webm'))).toBe('video/webm');
    expect(videoContentTypeOf(video('a.mov', ''))).toBe('video/quicktime');
    expect(videoContentTypeOf(video('a.MP4', 'application/octet-stream'))).toBe('video/mp4');
    // A text file renamed .mp4 keeps the type the browser read: refused.
    expect(videoContentTypeOf(video('notes.mp4', 'text/plain'))).toBeNull();
    expect(videoContentTypeOf(video('clip.avi', 'video/x-msvideo'))).toBeNull();
    expect(VIDEO_ACCEPT_ATTRIBUTE).toBe('video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm');
  });

  it("refuses another type and a video over 150 MB in the server's words", () => {
    expect(validateVideoFile(video('notes.txt', 'text/plain'))).toBe(MSG_VIDEO_TYPE);
    expect(MSG_VIDEO_TYPE).toBe('Invalid file type. Please select an MP4, MOV or WebM video.');
    expect(validateVideoFile(video('big.mp4', 'video/mp4', VIDEO_MAX_BYTES + 1))).toBe(MSG_VIDEO_TOO_LARGE);
    expect(MSG_VIDEO_TOO_LARGE).toBe('Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.');
    expect(validateVideoFile(video('edge.mp4', 'video/mp4', VIDEO_MAX_BYTES))).toBeNull();
    expect(validateVideoFile(video('empty.mp4', 'video/mp4', 0))).toMatch(/empty/);
  });
});

describe('adding videos', () => {
  it('sorts a drop by name after the videos already there and keeps three at most, naming the rest', () => {
    const first = addVideos([], [video('turn-2.mp4'), video('turn-10.mp4'), video('turn-1.mp4')]);
    expect(first.videos.map((v) => v.name)).toEqual(['turn-1.mp4', 'turn-2.mp4', 'turn-10.mp4']);
    expect(first.refused).toEqual([]);
    const second = addVideos(first.videos.slice(0, 2), [video('z.mp4'), video('y.mp4'), video('x.txt', 'text/plain')]);
    expect(second.videos.map((v) => v.name)).toEqual(['turn-1.mp4', 'turn-2.mp4', 'y.mp4']);
    expect(second.refused).toEqual([`x.txt: ${MSG_VIDEO_TYPE}`, `z.mp4: ${MSG_VIDEO_TOO_MANY}`]);
    expect(MSG_VIDEO_TOO_MANY).toBe('A build takes at most 3 videos, one per camera height.');
  });
});

describe('video lengths', () => {
  it('refuses under 2 s and over 60 s when the browser read the length, and never when it could not', () => {
    expect(durationProblem('a.mp4', 1.4)).toBe('a.mp4 is only 1.4 s long: film one full turn of the table, 10 to 20 seconds.');
    expect(durationProblem('a.mp4', 75)).toBe('a.mp4 is 1 min 15 s long: a video may last at most 60 seconds. Film one turn of 10 to 20 seconds.');
    expect(durationProblem('a.mp4', 2)).toBeNull();
    expect(durationProblem('a.mp4', 60)).toBeNull();
    expect(durationProblem('a.mp4', 60.6)).toBeNull(); // the server's tolerance for rounding
    expect(durationProblem('a.mp4', 61.5)).toMatch(/at most 60 seconds/);
    expect(durationProblem('a.mp4', null)).toBeNull(); // HEVC in Chromium: the server decides
    expect(durationProblem('a.mp4', undefined)).toBeNull(); // not read yet
    expect(durationProblem('a.mp4', Infinity)).toBeNull(); // a recorder's WebM
    expect(formatDuration(4.04)).toBe('4 s');
    expect(formatDuration(12.34)).toBe('12.3 s');
  });

  it('lists every problem of the videos added', () => {
    const a = video('a.mp4');
    const b = video('b.mp4');
    expect(spinVideoProblems([a, b], new Map([[a, 1], [b, null]]))).toEqual([durationProblem('a.mp4', 1)]);
    expect(spinVideoProblems([a, b], new Map())).toEqual([]);
  });
});

describe('labels', () => {
  it('names the camera height each place stands for, lowest first', () => {
    expect([0, 1, 2].map(videoHeightLabel)).toEqual([
      'Video 1 — level with the middle of the product',
      'Video 2 — a little above (about 30°)',
      'Video 3 — well above (about 55°)',
    ]);
  });

  it('prices 12 AI credits per video, and counts the uploads', () => {
    expect(videoCredits(2)).toBe(24);
    expect(videoPriceLabel(1)).toBe('12 AI credits per video: 12 AI credits');
    expect(videoPriceLabel(3)).toBe('12 AI credits per video: 36 AI credits');
    expect(videoBuildLabel(1)).toBe('Build from 1 video');
    expect(videoBuildLabel(2)).toBe('Build from 2 videos');
    expect(videoUploadingLabel(0, 2)).toBe('Uploading video 1 of 2');
    expect(videoUploadingLabel(2, 2)).toBe('Uploading video 2 of 2');
    expect(videoStartingLabel(2)).toBe('All 2 videos uploaded. Starting the build…');
  });

  it('a build cut from videos says so; a photo spin set as before', () => {
    expect(spinViewsLabel(24, 2, 2)).toBe('Built from 2 videos (24 frames)');
    expect(spinViewsLabel(12, 1, 1)).toBe('Built from 1 video (12 frames)');
    expect(spinViewsLabel(24, 2)).toBe('Built from 24 photos in 2 rings');
  });
});

describe('a job cut from videos', () => {
  it('keeps the video count with the rings; a photo spin set has none', () => {
    const rings = [
      { photos: 12, elevation: 0 },
      { photos: 12, elevation: 30 },
    ];
    expect(parseJob({ id: 'j', views: 24, spin: { rings, videos: 2 } }).spin).toEqual({ rings, videos: 2 });
    expect(parseJob({ id: 'j', views: 24, spin: { rings } }).spin).toEqual({ rings });
    expect(parseJob({ id: 'j', views: 24, spin: { rings, videos: 'two' } }).spin).toEqual({ rings });
    expect(parseJob({ id: 'j', spin: { videos: 2 } }).spin).toBeNull();
  });
});
