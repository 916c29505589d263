package dev.retrykit.spring.boot.http.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/** A failed attempt's response as read before it was closed: status, headers and body; holds no connection. */
final class BufferedResponse implements ClientHttpResponse {

	private final HttpStatusCode status;

	private final String statusText;

	private final HttpHeaders headers;

	private final byte[] body;

	private BufferedResponse(HttpStatusCode status, String statusText, HttpHeaders headers, byte[] body) {
		this.status = status;
		this.statusText = statusText;
		this.headers = headers;
		this.body = body;
	}

	/**
	 * Reads a response and closes it.
	 * @param response the response
	 * @return its copy; the body is empty when it is longer than {@link RetriedStatusException#MAX_BODY}
	 * @throws IOException if the status cannot be read
	 */
	static BufferedResponse readAndClose(ClientHttpResponse response) throws IOException {
		try (response) {
			HttpStatusCode status = response.getStatusCode();
			String text = response.getStatusText();
			HttpHeaders headers = new HttpHeaders();
			headers.putAll(response.getHeaders());
			byte[] body;
			try (InputStream in = response.getBody()) {
				body = in.readNBytes(RetriedStatusException.MAX_BODY + 1);
			}
			catch (IOException ex) {
				body = new byte[0];
			}
			return new BufferedResponse(status, text, headers, (body.length > RetriedStatusException.MAX_BODY)
					? new byte[0] : body);
		}
	}

	byte[] bodyBytes() {
		return this.body;
	}

	@Override
	public HttpStatusCode getStatusCode() {
		return this.status;
	}

	@Override
	public String getStatusText() {
		return this.statusText;
	}

	@Override
	public HttpHeaders getHeaders() {
		return this.headers;
	}

	@Override
	public InputStream getBody() {
		return new ByteArrayInputStream(this.body);
	}

	@Override
	public void close() {
	}

}
