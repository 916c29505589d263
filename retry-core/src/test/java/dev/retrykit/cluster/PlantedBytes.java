package dev.retrykit.cluster;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a member or a client with write rights can put in the shared store, made by hand: snapshots
 * with a Java-serialized attribute of any class name, a Java serialization stream that names a class
 * without needing it, and a class loader that has a class whose superclass is missing.
 */
public final class PlantedBytes {

	/** A class the {@link #unlinkableLoader() unlinkable loader} defines; its superclass exists nowhere. */
	public static final String UNLINKABLE = "dev.retrykit.planted.Unlinkable";

	private PlantedBytes() {
	}

	/**
	 * {@return a Java serialization stream of one object of {@code className} without fields, made
	 * without loading the class}
	 * @param className the class the stream names
	 */
	public static byte[] serializedObjectNamed(String className) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeShort(0xaced);
			out.writeShort(5);
			out.writeByte(0x73); // TC_OBJECT
			out.writeByte(0x72); // TC_CLASSDESC
			out.writeUTF(className);
			out.writeLong(1L);
			out.writeByte(0x02); // SC_SERIALIZABLE
			out.writeShort(0);
			out.writeByte(0x78); // TC_ENDBLOCKDATA
			out.writeByte(0x70); // TC_NULL: no serializable superclass
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	/**
	 * {@return an encoded snapshot with one attribute holding {@code stream} as a Java-serialized value}
	 * @param instance the instance name
	 * @param count the retry count
	 * @param attribute the attribute's name
	 * @param stream a Java serialization stream
	 */
	public static byte[] snapshotWithSerializedAttribute(String instance, int count, String attribute, byte[] stream) {
		SnapshotValues.Writer value = new SnapshotValues.Writer();
		value.writeByte(SnapshotValues.SERIALIZED);
		value.writeBytes(stream);
		return snapshotWithRawAttribute(instance, count, attribute, value.toByteArray());
	}

	/**
	 * {@return an encoded snapshot with one attribute whose value is {@code value}, as tagged bytes}
	 * @param instance the instance name
	 * @param count the retry count
	 * @param attribute the attribute's name
	 * @param value the attribute's value in the tagged form, tag first
	 */
	public static byte[] snapshotWithRawAttribute(String instance, int count, String attribute, byte[] value) {
		SnapshotValues.Writer out = new SnapshotValues.Writer();
		out.writeByte(SnapshotCodec.FORMAT);
		out.writeString(instance);
		out.writeInt(count);
		out.writeByte(0);
		out.writeNullableString("java.io.IOException");
		out.writeNullableString("planted");
		out.writeLong(1L);
		out.writeInt(1);
		out.writeString(attribute);
		out.writeBytes(value);
		out.writeInt(0);
		return out.toByteArray();
	}

	/**
	 * {@return a set (in the tagged form) of {@code size} two-element lists of integers that all have the
	 * same hash code: {@code [i, -31 * i]}}
	 * @param size how many lists
	 */
	public static byte[] setOfCollidingLists(int size) {
		SnapshotValues.Writer out = new SnapshotValues.Writer();
		out.writeByte(SnapshotValues.SET);
		out.writeInt(size);
		for (int i = 0; i < size; i++) {
			out.writeByte(SnapshotValues.LIST);
			out.writeInt(2);
			out.writeByte(SnapshotValues.INT);
			out.writeInt(i);
			out.writeByte(SnapshotValues.INT);
			out.writeInt(-31 * i);
		}
		return out.toByteArray();
	}

	/**
	 * {@return a loader (child of this class's) that defines {@link #UNLINKABLE} from bytes, a class whose
	 * superclass is missing, so that defining it throws {@link NoClassDefFoundError}; it records every
	 * name it is asked for}
	 */
	public static RecordingLoader unlinkableLoader() {
		return new RecordingLoader(PlantedBytes.class.getClassLoader());
	}

	/** Defines {@link #UNLINKABLE}, whose superclass {@code dev.retrykit.planted.Missing} it does not have. */
	public static final class RecordingLoader extends ClassLoader {

		/** The names this loader was asked to load. */
		public final Set<String> asked = ConcurrentHashMap.newKeySet();

		RecordingLoader(ClassLoader parent) {
			super(parent);
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			this.asked.add(name);
			return super.loadClass(name, resolve);
		}

		@Override
		protected Class<?> findClass(String name) throws ClassNotFoundException {
			if (UNLINKABLE.equals(name)) {
				byte[] bytes = classFile(UNLINKABLE, "dev.retrykit.planted.Missing", List.of("java.io.Serializable"));
				return defineClass(name, bytes, 0, bytes.length);
			}
			throw new ClassNotFoundException(name);
		}

	}

	/** A class file with no fields nor methods (major version 52), with that superclass and interfaces. */
	static byte[] classFile(String name, String superclass, List<String> interfaces) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeInt(0xcafebabe);
			out.writeShort(0);
			out.writeShort(52);
			out.writeShort(1 + 2 * (2 + interfaces.size()));
			int index = 1;
			for (String type : concat(name, superclass, interfaces)) {
				out.writeByte(1); // CONSTANT_Utf8
				out.writeUTF(type.replace('.', '/'));
				out.writeByte(7); // CONSTANT_Class
				out.writeShort(index);
				index += 2;
			}
			out.writeShort(0x0021); // public, super
			out.writeShort(2);
			out.writeShort(4);
			out.writeShort(interfaces.size());
			for (int i = 0; i < interfaces.size(); i++) {
				out.writeShort(6 + 2 * i);
			}
			out.writeShort(0);
			out.writeShort(0);
			out.writeShort(0);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	private static List<String> concat(String name, String superclass, List<String> interfaces) {
		List<String> all = new java.util.ArrayList<>(List.of(name, superclass));
		all.addAll(interfaces);
		return all;
	}

}
