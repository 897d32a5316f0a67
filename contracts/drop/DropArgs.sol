// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {IDropERC721} from "../IDropERC721.sol";

/// @notice The drop's creation-time settings, appended to the clone's code after the 45-byte
/// EIP-1167 proxy (the layout of OpenZeppelin's `Clones.cloneWithImmutableArgs`). Code costs
/// 200 gas a byte to deposit against about 690 a byte for fresh storage, which is what keeps
/// creating a drop under 200k gas. Settings the owner may change later (price, currency,
/// root, royalty, base URI) get a storage copy when changed; a flag says which copy counts.
///
/// Layout (byte offsets): 0 provenanceHash (32) | 32 mode (1) | 33 royaltyRecipient (20) |
/// 53 royaltyBps (2) | 55 currency (20) | 75 unitPrice (12) | 87 merkleRoot (32) |
/// 119 uint16 name length, name | uint16 symbol length, symbol | baseURI (the rest).
library DropArgs {
    error StringTooLong();

    /// Size of the EIP-1167 proxy that precedes the args.
    uint256 internal constant PROXY_SIZE = 45;

    function encode(IDropERC721.InitParams calldata p) internal pure returns (bytes memory) {
        if (bytes(p.name).length > type(uint16).max || bytes(p.symbol).length > type(uint16).max) {
            revert StringTooLong();
        }
        return abi.encodePacked(
            abi.encodePacked(p.provenanceHash, uint8(p.mode), p.royaltyRecipient, p.royaltyBps),
            abi.encodePacked(p.currency, p.unitPrice, p.merkleRoot),
            abi.encodePacked(uint16(bytes(p.name).length), p.name, uint16(bytes(p.symbol).length), p.symbol),
            p.baseURI
        );
    }

    // Readers run inside the clone (through delegatecall), so `address()` is the clone and
    // extcodecopy reads its code; CODECOPY would read the implementation's.

    function provenanceHash() internal view returns (bytes32) {
        return _word(0);
    }

    function mode() internal view returns (IDropERC721.Mode) {
        return IDropERC721.Mode(uint8(bytes1(_word(32))));
    }

    function royalty() internal view returns (address recipient, uint16 bps) {
        bytes32 w = _word(33);
        return (address(bytes20(w)), uint16(bytes2(w << 160)));
    }

    /// Creation-time currency, unit price and allowlist root, in one code read.
    function conditions() internal view returns (address currency, uint96 unitPrice, bytes32 root) {
        assembly ("memory-safe") {
            extcodecopy(address(), 0, add(PROXY_SIZE, 55), 64)
            let w := mload(0)
            currency := shr(96, w)
            unitPrice := and(w, 0xffffffffffffffffffffffff)
            root := mload(32)
        }
    }

    function name() internal view returns (string memory) {
        return string(_slice(121, _nameLength()));
    }

    function symbol() internal view returns (string memory) {
        uint256 at = 121 + _nameLength();
        return string(_slice(at + 2, uint16(bytes2(_word(at)))));
    }

    function baseURI() internal view returns (string memory) {
        uint256 at = 121 + _nameLength();
        at += 2 + uint16(bytes2(_word(at)));
        return string(_slice(at, address(this).code.length - PROXY_SIZE - at));
    }

    function _nameLength() private view returns (uint256) {
        return uint16(bytes2(_word(119)));
    }

    function _word(uint256 offset) private view returns (bytes32 w) {
        assembly ("memory-safe") {
            extcodecopy(address(), 0, add(PROXY_SIZE, offset), 32)
            w := mload(0)
        }
    }

    function _slice(uint256 offset, uint256 length) private view returns (bytes memory out) {
        out = new bytes(length);
        assembly ("memory-safe") {
            extcodecopy(address(), add(out, 32), add(PROXY_SIZE, offset), length)
        }
    }
}
