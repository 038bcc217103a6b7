import CZlib
import Foundation

/// Raw DEFLATE decompression (zlib with no header, window bits −15): the encoding of a store's
/// `Z_MODELCACHE`. The output is capped so a hostile blob cannot exhaust memory.
enum Inflate {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func raw(_ input: Data, limit: Int = 64 << 20) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        try input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return buffer.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw Failure(description: "not valid DEFLATE data (zlib status \(status))")
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else {
                    throw Failure(description: "inflates to more than \(limit >> 20) MB")
                }
                if produced == 0 && stream.avail_in == 0 && status != Z_STREAM_END {
                    throw Failure(description: "DEFLATE data ends early")
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
