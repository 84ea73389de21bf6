use super::*;

fn decode(input: &[u8]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let events = d.push(input).unwrap();
    assert_eq!(d.finish(), Ok(()));
    events
}

fn ev(event: &str, data: &str, id: Option<&str>) -> SseEvent {
    SseEvent {
        event: event.into(),
        data: data.into(),
        id: id.map(Into::into),
    }
}

/// Feeds one byte at a time.
fn decode_bytewise(input: &[u8]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    for b in input {
        out.extend(d.push(std::slice::from_ref(b)).unwrap());
    }
    out
}

#[test]
fn mcp_message_event_with_id() {
    let input = b"event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
    assert_eq!(
        decode(input),
        vec![ev(
            "message",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            Some("7")
        )]
    );
}

#[test]
fn line_endings_lf_crlf_cr_are_equivalent() {
    let lf = b"data: a\ndata: b\n\nevent: x\ndata: c\n\n".to_vec();
    let crlf = b"data: a\r\ndata: b\r\n\r\nevent: x\r\ndata: c\r\n\r\n".to_vec();
    let cr = b"data: a\rdata: b\r\revent: x\rdata: c\r\r".to_vec();
    let mixed = b"data: a\r\ndata: b\r\n\nevent: x\rdata: c\n\r\n".to_vec();
    let expected = vec![ev("message", "a\nb", None), ev("x", "c", None)];
    for input in [lf, crlf, cr, mixed] {
        assert_eq!(
            decode(&input),
            expected,
            "{:?}",
            String::from_utf8_lossy(&input)
        );
        assert_eq!(decode_bytewise(&input), expected);
    }
}

#[test]
fn crlf_split_across_chunks_is_one_line_end() {
    let mut d = SseDecoder::new();
    assert_eq!(d.push(b"data: a\r").unwrap(), vec![]);
    assert_eq!(d.push(b"\n").unwrap(), vec![]);
    assert_eq!(d.push(b"\r").unwrap(), vec![ev("message", "a", None)]);
    assert_eq!(d.push(b"").unwrap(), vec![]);
    // The LF after the CR that ended the event must not end another (empty) line.
    assert_eq!(
        d.push(b"\ndata: b\n\n").unwrap(),
        vec![ev("message", "b", None)]
    );
}

#[test]
fn split_utf8_sequences_decode_whole() {
    let input = "data: héllo wörld — ✓ 🎉\n\n".as_bytes();
    let expected = vec![ev("message", "héllo wörld — ✓ 🎉", None)];
    assert_eq!(decode_bytewise(input), expected);
    for cut in 0..input.len() {
        let mut d = SseDecoder::new();
        let (a, b) = input.split_at(cut);
        let mut out = d.push(a).unwrap();
        out.extend(d.push(b).unwrap());
        assert_eq!(out, expected, "cut at {cut}");
    }
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    assert_eq!(
        decode(b"data: a\xFFb\xE2\x82\n\n"),
        vec![ev("message", "a\u{FFFD}b\u{FFFD}", None)]
    );
}

#[test]
fn leading_bom_is_dropped_once_even_when_split() {
    let input = b"\xEF\xBB\xBFdata: x\n\n";
    assert_eq!(decode(input), vec![ev("message", "x", None)]);
    assert_eq!(decode_bytewise(input), vec![ev("message", "x", None)]);
    // A second BOM is content: the field name is then "\u{FEFF}data", which is ignored.
    assert_eq!(decode(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), vec![]);
    // A partial BOM is ordinary (invalid) input.
    assert_eq!(decode(b"\xEF\xBBdata: x\n\n"), vec![]);
    assert_eq!(
        decode(b"\xEF\n\ndata: y\n\n"),
        vec![ev("message", "y", None)]
    );
}

#[test]
fn bom_is_dropped_again_after_finish() {
    let mut d = SseDecoder::new();
    assert_eq!(d.push(b"\xEF\xBB\xBFdata: 1\n\n").unwrap().len(), 1);
    d.finish().unwrap();
    assert_eq!(d.push(b"\xEF\xBB").unwrap(), vec![]);
    assert_eq!(
        d.push(b"\xBFdata: 2\n\n").unwrap(),
        vec![ev("message", "2", None)]
    );
}

#[test]
fn comments_and_unknown_fields_are_ignored() {
    let input = b": keep-alive\n:another\nfoo: bar\ndata: x\n: mid-event comment\n\n";
    assert_eq!(decode(input), vec![ev("message", "x", None)]);
    assert_eq!(decode(b": only a comment\n\n"), vec![]);
}

#[test]
fn field_without_colon_has_empty_value() {
    // `data` alone appends an empty line; two of them make "\n".
    assert_eq!(decode(b"data\ndata\n\n"), vec![ev("message", "\n", None)]);
    assert_eq!(
        decode(b"data: a\ndata\n\n"),
        vec![ev("message", "a\n", None)]
    );
    // `event` alone resets the type to the default.
    assert_eq!(
        decode(b"event\ndata: a\n\n"),
        vec![ev("message", "a", None)]
    );
}

#[test]
fn only_one_space_after_the_colon_is_stripped() {
    assert_eq!(decode(b"data:  two\n\n"), vec![ev("message", " two", None)]);
    assert_eq!(decode(b"data:none\n\n"), vec![ev("message", "none", None)]);
    assert_eq!(decode(b"data:\tx\n\n"), vec![ev("message", "\tx", None)]);
    assert_eq!(decode(b"data: a: b\n\n"), vec![ev("message", "a: b", None)]);
}

#[test]
fn empty_priming_events_dispatch_nothing_but_record_id_and_retry() {
    let mut d = SseDecoder::new();
    // The TS SDK / rmcp style priming event: an id and empty data (rmcp sends data before id).
    assert_eq!(d.push(b"data: \nid: 0\nretry: 3000\n\n").unwrap(), vec![]);
    assert_eq!(d.last_event_id(), Some("0"));
    assert_eq!(d.retry_ms(), Some(3000));
    assert_eq!(
        d.push(b"id: 1\ndata: {}\n\n").unwrap(),
        vec![ev("message", "{}", Some("1"))]
    );
    assert_eq!(d.last_event_id(), Some("1"));
    // No data field at all.
    assert_eq!(d.push(b"id: 2\nevent: ping\n\n").unwrap(), vec![]);
    assert_eq!(d.last_event_id(), Some("2"));
}

#[test]
fn id_persists_across_events_and_can_be_reset() {
    let mut d = SseDecoder::new();
    let out = d
        .push(b"id: a\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n")
        .unwrap();
    assert_eq!(
        out,
        vec![
            ev("message", "1", Some("a")),
            ev("message", "2", Some("a")),
            ev("message", "3", None)
        ]
    );
    assert_eq!(d.last_event_id(), None);
}

#[test]
fn id_with_nul_is_ignored() {
    let mut d = SseDecoder::new();
    let out = d
        .push(b"id: good\ndata: 1\n\nid: b\0ad\ndata: 2\n\n")
        .unwrap();
    assert_eq!(
        out,
        vec![
            ev("message", "1", Some("good")),
            ev("message", "2", Some("good"))
        ]
    );
    assert_eq!(d.last_event_id(), Some("good"));
}

#[test]
fn id_is_only_recorded_when_the_event_ends() {
    let mut d = SseDecoder::new();
    d.push(b"id: 5\ndata: x\n").unwrap();
    assert_eq!(d.last_event_id(), None);
    assert_eq!(d.finish(), Err(SseError::Truncated { pending_bytes: 2 }));
    assert_eq!(d.last_event_id(), None);
}

#[test]
fn retry_takes_ascii_digits_only() {
    let mut d = SseDecoder::new();
    for (line, expected) in [
        (&b"retry: 1500\n"[..], Some(1500)),
        (b"retry: 15x0\n", Some(1500)),
        (b"retry: -1\n", Some(1500)),
        (b"retry:\n", Some(1500)),
        (b"retry: 1.5\n", Some(1500)),
        (b"retry:  20\n", Some(1500)),
        (b"retry: 99999999999999999999999\n", Some(1500)),
        (b"retry:0\n", Some(0)),
    ] {
        d.push(line).unwrap();
        assert_eq!(d.retry_ms(), expected, "{}", String::from_utf8_lossy(line));
    }
}

#[test]
fn finish_reports_and_discards_a_partial_event() {
    let mut d = SseDecoder::new();
    assert_eq!(d.push(b"data: {\"partial\"").unwrap(), vec![]);
    assert_eq!(d.finish(), Err(SseError::Truncated { pending_bytes: 16 }));
    // The decoder is ready for the next stream.
    assert_eq!(
        d.push(b"data: next\n\n").unwrap(),
        vec![ev("message", "next", None)]
    );
    assert_eq!(d.finish(), Ok(()));
}

#[test]
fn finish_keeps_id_and_retry_for_resumption() {
    let mut d = SseDecoder::new();
    d.push(b"retry: 10\nid: 41\ndata: x\n\n").unwrap();
    d.finish().unwrap();
    assert_eq!(d.last_event_id(), Some("41"));
    assert_eq!(d.retry_ms(), Some(10));
    assert_eq!(
        d.push(b"data: y\n\n").unwrap(),
        vec![ev("message", "y", Some("41"))]
    );
}

#[test]
fn overlong_line_is_an_error_even_unterminated() {
    let mut d = SseDecoder::with_limit(16);
    assert_eq!(d.push(b"data: 0123456789"), Ok(vec![]));
    assert_eq!(d.push(b"abcdef"), Err(SseError::TooLarge { limit: 16 }));
    // The stream is not trusted any further.
    assert_eq!(d.push(b"\n\n"), Err(SseError::TooLarge { limit: 16 }));
    assert_eq!(d.finish(), Err(SseError::TooLarge { limit: 16 }));
}

#[test]
fn overlong_event_data_is_an_error() {
    let mut d = SseDecoder::with_limit(16);
    let mut out = Vec::new();
    let r = d.push_into(
        b"data: ok\n\ndata: 0123456789\ndata: 0123456789\n\n",
        &mut out,
    );
    assert_eq!(r, Err(SseError::TooLarge { limit: 16 }));
    // Events completed before the failure are kept by push_into.
    assert_eq!(out, vec![ev("message", "ok", None)]);
}

#[test]
fn an_oversized_chunk_is_refused_before_it_is_buffered() {
    let big = vec![b'a'; 1 << 20];
    // At the start of a stream (BOM detection), in the middle of a line, and before its end.
    let mut fresh = SseDecoder::with_limit(1024);
    assert_eq!(fresh.push(&big), Err(SseError::TooLarge { limit: 1024 }));
    let mut mid = SseDecoder::with_limit(1024);
    assert_eq!(mid.push(b"data: abc"), Ok(vec![]));
    assert_eq!(mid.push(&big), Err(SseError::TooLarge { limit: 1024 }));
    let mut ended = SseDecoder::with_limit(1024);
    assert_eq!(ended.push(b"data: abc"), Ok(vec![]));
    let mut line = big.clone();
    line.extend_from_slice(b"\n\n");
    assert_eq!(ended.push(&line), Err(SseError::TooLarge { limit: 1024 }));
    for d in [&fresh, &mid, &ended] {
        let held = d.line.capacity() + d.start.as_ref().map_or(0, Vec::capacity);
        assert!(held <= 1024, "{held} bytes held");
    }
}

#[test]
fn comment_floods_do_not_grow_memory() {
    let mut d = SseDecoder::with_limit(64);
    for _ in 0..10_000 {
        assert_eq!(d.push(b": keep-alive\n").unwrap(), vec![]);
    }
    assert_eq!(d.finish(), Ok(()));
}

#[test]
fn python_sdk_crlf_stream() {
    let input = b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"elicitation/create\"}\r\n\r\n";
    let out = decode(input);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].data,
        r#"{"jsonrpc":"2.0","id":"s-1","method":"elicitation/create"}"#
    );
}
