package dev.retrykit.sample.client;

import dev.retrykit.annotation.Failback;
import dev.retrykit.sample.client.Model.AuditEvent;

import org.springframework.stereotype.Component;

/**
 * Publishes audit events, fire-and-forget (instance {@code audit}): the call returns at once; if the
 * downstream fails, the event is retried in the background, at most one pending retry per event id.
 */
@Component
public class AuditPublisher {

	private final Downstream downstream;

	AuditPublisher(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param event the event to publish
	 */
	@Failback(value = "audit", key = "#event.id")
	public void publish(AuditEvent event) {
		this.downstream.client().post().uri("/audit").body(event).retrieve().toBodilessEntity();
	}

}
