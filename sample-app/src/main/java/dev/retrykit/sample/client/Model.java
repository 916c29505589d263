package dev.retrykit.sample.client;

/** The payloads the sample's clients exchange with the downstream. */
public final class Model {

	private Model() {
	}

	/** Stock of a product. @param sku the product @param quantity units in stock */
	public record Stock(String sku, int quantity) {
	}

	/** Price of a product. @param sku the product @param price the price @param cached whether it is a fallback */
	public record Price(String sku, String price, boolean cached) {
	}

	/** A shipping quote. @param orderId the order @param days days to deliver */
	public record ShippingQuote(String orderId, int days) {
	}

	/** A payment. @param orderId the order @param paid whether it went through */
	public record PaymentReceipt(String orderId, boolean paid) {
	}

	/** Products bought together. @param sku the product @param alsoBought the other products */
	public record Recommendations(String sku, java.util.List<String> alsoBought) {
	}

	/** Search results. @param query what was looked for @param skus the products found */
	public record SearchResults(String query, java.util.List<String> skus) {
	}

	/** An audit event. @param id the event id @param action what happened */
	public record AuditEvent(String id, String action) {
	}

}
