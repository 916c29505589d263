package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.io.PrintWriter;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

/**
 * A servlet response that takes the exhaustion header as soon as it is known to be an error and before it is
 * committed: when its status is set to 400 or above, when an error is sent, when its body is opened or its buffer
 * flushed (a message converter flushes, which commits). Used on the request's dispatch threads only.
 */
final class MarkingResponse extends HttpServletResponseWrapper {

	private final ExhaustionMarker marker;

	private final String header;

	MarkingResponse(HttpServletResponse response, ExhaustionMarker marker, String header) {
		super(response);
		this.marker = marker;
		this.header = header;
	}

	/** Marks the response if it is an error and a call of the request gave up. */
	void markIfError() {
		if (getStatus() >= 400) {
			mark();
		}
	}

	/** Marks the response if a call of the request gave up, whatever its status so far. */
	void mark() {
		String instance = this.marker.exhaustedInstance();
		if (instance != null && !isCommitted()) {
			setHeader(this.header, instance);
		}
	}

	@Override
	public void setStatus(int sc) {
		super.setStatus(sc);
		markIfError();
	}

	@Override
	public void sendError(int sc, String msg) throws IOException {
		mark();
		super.sendError(sc, msg);
	}

	@Override
	public void sendError(int sc) throws IOException {
		mark();
		super.sendError(sc);
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		markIfError();
		return super.getOutputStream();
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		markIfError();
		return super.getWriter();
	}

	@Override
	public void flushBuffer() throws IOException {
		markIfError();
		super.flushBuffer();
	}

}
