// SPDX-License-Identifier: GPL-3.0-or-later

/// Float samples (full scale ±1) to 16-bit integers: times 32,768, anything at or above 32,767 (or
/// at or below −32,768) clipped, the rest rounded half to even (`lrintf`'s rounding), NaN to 0.
/// That is how libsndfile's float path writes 16-bit FLAC with its clipping on; its WAV and AIFF
/// path floors instead (0.6 LSB became 0, −0.6 became −1) and writes NaN as −32,768, so `render`
/// and the 16-bit sound devices use this for every container.
///
/// Eight at a time in vector registers (`int16`), the last few padded to eight.
public func convertToInt16(_ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Int16>, count: Int) {
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
    var i = 0
    while i + 8 <= count {
        to.storeBytes(of: int16(from.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)), toByteOffset: 2 * i, as: SIMD8<Int16>.self)
        i += 8
    }
    guard i < count else { return }
    var tail = SIMD8<Float>()
    for k in 0..<(count - i) { tail[k] = source[i + k] }
    let done = int16(tail)
    for k in 0..<(count - i) { destination[i + k] = done[k] }
}

/// The rule of `convertToInt16` for eight samples: NaN cleared, clamped, then rounded by an
/// addition of 1.5 × 2²³ (every sum lies between 2²³ and 2²⁴, where floats are whole numbers, so
/// the addition itself rounds, half to even as the FPU does by default, and the sum's low bits
/// are the result).
@_transparent
func int16(_ samples: SIMD8<Float>) -> SIMD8<Int16> {
    var y = samples * 32_768
    y.replace(with: 0, where: y .!= y)
    y.replace(with: 32_767, where: y .> 32_767)
    y.replace(with: -32_768, where: y .< -32_768)
    let magic: Float = 12_582_912   // 1.5 × 2²³, bit pattern 0x4B40_0000
    return SIMD8<Int16>(truncatingIfNeeded: unsafeBitCast(y + magic, to: SIMD8<Int32>.self) &- 0x4B40_0000)
}

/// 16-bit integers to float samples: divided by 32,768 (a multiplication by its exact inverse), as
/// libsndfile's `sf_readf_float` makes them from 16-bit PCM with its normalisation on.
///
/// Eight at a time in vector registers, each eight loaded before it is stored, so `source` may lie
/// inside `destination`'s memory, at or after its byte `2 × count`: every store then lands on
/// shorts already read (`SoundFile.read` widens a block in place this way). Raw loads and stores,
/// so the memory's bound type does not matter.
public func convertFromInt16(_ source: UnsafePointer<Int16>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
    let scale: Float = 1 / 32_768
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
    var i = 0
    while i + 8 <= count {
        let v = from.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Int16>.self)
        to.storeBytes(of: SIMD8<Float>(v) * scale, toByteOffset: 4 * i, as: SIMD8<Float>.self)
        i += 8
    }
    while i < count {
        to.storeBytes(of: Float(from.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self)) * scale, toByteOffset: 4 * i, as: Float.self)
        i += 1
    }
}
